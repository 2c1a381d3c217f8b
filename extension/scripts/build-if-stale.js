// Build the labextension (npm run build:prod) unless labextension/ is newer than every input.
// Run by the wheel's build hook (pyproject.toml) and so by `pip install` and ./dev.
const fs = require('fs');
const path = require('path');
const { spawnSync } = require('child_process');

const root = path.resolve(__dirname, '..');
const INPUTS = ['src', 'style', 'package.json', 'package-lock.json', 'tsconfig.json'];
const OUTPUT = path.join(root, 'labextension', 'package.json');

function newest(file) {
  const stat = fs.statSync(file);
  if (!stat.isDirectory()) {
    return stat.mtimeMs;
  }
  return fs.readdirSync(file).reduce((latest, name) => Math.max(latest, newest(path.join(file, name))), stat.mtimeMs);
}

function stale() {
  if (!fs.existsSync(OUTPUT)) {
    return 'no build yet';
  }
  const built = fs.statSync(OUTPUT).mtimeMs;
  const changed = INPUTS.filter(input => fs.existsSync(path.join(root, input)) && newest(path.join(root, input)) > built);
  return changed.length > 0 ? `changed: ${changed.join(', ')}` : null;
}

const reason = process.argv.includes('--force') ? 'forced' : stale();
if (reason === null) {
  console.log('kernellab labextension is up to date');
  process.exit(0);
}
console.log(`building the kernellab labextension (${reason})`);
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
const result = spawnSync(npm, ['run', 'build:prod'], { cwd: root, stdio: 'inherit' });
process.exit(result.status === null ? 1 : result.status);
