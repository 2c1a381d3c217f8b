// Build the labextension (npm run build:prod) unless labextension/sources.sha256 records the
// current sources' hash; after a build, write it. The hash is stamp.py's (keep them in step:
// tests/extension/test_prebuilt.py compares them): SHA-256 over each input file's POSIX path
// relative to extension/, a NUL, its bytes, a NUL, in path order; src/__tests__ is left out.
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const INPUTS = ['src', 'style', 'package.json', 'package-lock.json', 'tsconfig.json'];
const EXCLUDED = ['src/__tests__'];
const STAMP = path.join(root, 'labextension', 'sources.sha256');

function files(relative) {
  const full = path.join(root, relative);
  if (!fs.existsSync(full)) {
    return [];
  }
  if (!fs.statSync(full).isDirectory()) {
    return [relative];
  }
  return fs.readdirSync(full).flatMap(name => files(`${relative}/${name}`));
}

function sourcesHash() {
  const inputs = INPUTS.flatMap(files)
    .filter(file => !EXCLUDED.some(skip => file === skip || file.startsWith(`${skip}/`)))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const digest = crypto.createHash('sha256');
  for (const file of inputs) {
    digest.update(Buffer.concat([Buffer.from(file), Buffer.from([0])]));
    digest.update(Buffer.concat([fs.readFileSync(path.join(root, file)), Buffer.from([0])]));
  }
  return digest.digest('hex');
}

if (process.argv.includes('--hash')) {
  console.log(sourcesHash());
  process.exit(0);
}
const wanted = sourcesHash();
const recorded = fs.existsSync(STAMP) ? fs.readFileSync(STAMP, 'utf8').trim() : null;
if (!process.argv.includes('--force') && recorded === wanted && fs.existsSync(path.join(root, 'labextension', 'package.json'))) {
  console.log('kernellab labextension is up to date');
  process.exit(0);
}
console.log(`building the kernellab labextension (${recorded === null ? 'no stamped build' : 'sources changed'})`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['run', 'build:prod'], { cwd: root, stdio: 'inherit' });
if (result.status !== 0) {
  process.exit(result.status === null ? 1 : result.status);
}
fs.writeFileSync(STAMP, `${wanted}\n`);
