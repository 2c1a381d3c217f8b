// Drives JupyterLab in Debian's chromium (playwright-core, no browser download): opens a
// notebook, runs it, and checks the compile-report viewer the way a reader uses it.
// Run by test_extension.py, which starts JupyterLab and passes everything through argv as JSON:
// {url, token, notebook, chromium, extension, screenshots, mode}: mode "layout" runs the layout
// notebook's checks (panes resized, asm filtered, a compile error marked in the editor). Prints
// one JSON line of results; exits
// non-zero with the reason on the first failed check.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const options = JSON.parse(process.argv[2]);
const { chromium } = createRequire(path.join(options.extension, 'package.json'))('playwright-core');

const results = {};

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

async function runAll(page) {
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-Cell'), null, {
    timeout: 90000
  });
  // The kernel must be up before running.
  await page.waitForFunction(
    () => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle',
    null,
    { timeout: 90000 }
  );
  await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells'));
  // Each output is awaited together with any error output, so a failing cell is reported with its
  // error at once rather than as a timeout.
  await page.waitForSelector(`.jp-KernellabReport .klv-report .klv-panes, ${ERROR_OUTPUTS}`, { timeout: 180000 });
  await checkNoErrors(page);
  await page.waitForSelector(`.jp-KernellabReport .klv-compare, ${ERROR_OUTPUTS}`, { timeout: 180000 });
  await checkNoErrors(page);
  await page.waitForSelector('.jp-KernellabReport .klv-report .klv-panes', { timeout: 1000 });
  await page.waitForSelector('.jp-KernellabReport .klv-compare', { timeout: 1000 });
}

const ERROR_OUTPUTS = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]';

async function checkNoErrors(page) {
  const errors = await page.$$eval(
    `.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"], ${ERROR_OUTPUTS}`,
    nodes => nodes.map(node => node.textContent).filter(text => /Error|Traceback/.test(text))
  );
  check(errors.length === 0, `the notebook ran without errors: ${errors.join('\n')}`);
}

async function checkEditor(page) {
  // The %%tile_kernel cell's editor runs kernellab's language: Python with the magic line marked.
  const info = await page.evaluate(() => {
    const editors = [...document.querySelectorAll('.jp-CodeCell .cm-content')];
    const cell = editors.find(editor => editor.textContent.startsWith('%%tile_kernel'));
    if (!cell) {
      return null;
    }
    const keyword = [...cell.querySelectorAll('span')].find(span => span.textContent === 'def');
    return {
      language: cell.getAttribute('data-language'),
      magic: cell.querySelector('.cm-kernellab-magic')?.textContent ?? null,
      options: [...cell.querySelectorAll('.cm-kernellab-magic-option')].map(span => span.textContent),
      defColour: keyword ? getComputedStyle(keyword).color : null,
      textColour: getComputedStyle(cell).color
    };
  });
  check(info !== null, 'a %%tile_kernel cell is in the notebook');
  check(info.language === 'kernellab-tile-kernel', `the cell's language is kernellab-tile-kernel, got ${info.language}`);
  check(info.magic === '%%tile_kernel', 'the magic is marked');
  check(info.options.includes('--target'), 'the options are marked');
  check(info.defColour && info.defColour !== info.textColour, `"def" is highlighted as a Python keyword (${info.defColour})`);
  results.editor = info;
}

function stagePane(page, index) {
  return page.locator('.jp-KernellabReport .klv-report:not(.klv-compare) .klv-stage').nth(index);
}

async function litLines(pane) {
  return pane.locator('.klv-lines .klv-line.klv-hl').evaluateAll(nodes => nodes.map(node => Number(node.dataset.line)));
}

/** Stage lines of a pane that came from source line `source` (read from the gutter). */
async function linesFrom(pane, source) {
  return pane
    .locator('.klv-lines .klv-line')
    .evaluateAll((nodes, wanted) => nodes.filter(node => node.querySelector('.klv-at')?.textContent === String(wanted)).map(node => Number(node.dataset.line)), source);
}

async function checkHover(page) {
  const report = page.locator('.jp-KernellabReport .klv-report:not(.klv-compare)').first();
  await report.scrollIntoViewIfNeeded();
  const second = stagePane(page, 1);
  const first = stagePane(page, 0);
  const secondStage = await second.locator('.klv-tab.klv-active').textContent();
  // The source line with the most lines in the second pane's stage.
  const counts = await second.locator('.klv-lines .klv-at').evaluateAll(nodes => {
    const tally = {};
    for (const node of nodes) {
      if (node.textContent) {
        tally[node.textContent] = (tally[node.textContent] || 0) + 1;
      }
    }
    return tally;
  });
  const source = Number(Object.entries(counts).sort((a, b) => b[1] - a[1])[0][0]);
  const expected = await linesFrom(second, source);
  check(expected.length > 0, `source line ${source} has lines in ${secondStage}`);
  await report.locator(`.klv-source .klv-line[data-line="${source}"]`).hover();
  await page.waitForTimeout(100);
  const lit = await litLines(second);
  check(JSON.stringify(lit) === JSON.stringify(expected), `hovering source line ${source} lights ${secondStage} lines ${expected}, got ${lit}`);
  const litFirst = await litLines(first);
  const expectedFirst = await linesFrom(first, source);
  check(JSON.stringify(litFirst) === JSON.stringify(expectedFirst), `and the first stage pane's lines ${expectedFirst}, got ${litFirst}`);
  const sourceLit = await report.locator('.klv-source .klv-line.klv-hl').evaluateAll(nodes => nodes.map(node => Number(node.dataset.line)));
  check(JSON.stringify(sourceLit) === JSON.stringify([source]), 'the hovered source line is lit');
  results.hover = { source, stage: secondStage, lines: lit };
  return source;
}

async function checkTabs(page, source) {
  const first = stagePane(page, 0);
  const before = await first.locator('.klv-lines').getAttribute('data-pane');
  const tabs = await first.locator('.klv-tab').allTextContents();
  const target = tabs.find(name => name !== before);
  check(target !== undefined, `the first stage pane has another tab than ${before}: ${tabs}`);
  await first.locator('.klv-tab', { hasText: target }).first().click();
  const after = await first.locator('.klv-lines').getAttribute('data-pane');
  check(after === target, `clicking the ${target} tab shows ${target}, got ${after}`);
  const selected = await first.locator('.klv-tab[aria-selected="true"]').textContent();
  check(selected === target, `the ${target} tab is selected`);
  // Click (pin) the source line: the new stage's lines from it are lit.
  const report = page.locator('.jp-KernellabReport .klv-report:not(.klv-compare)').first();
  await report.locator(`.klv-source .klv-line[data-line="${source}"]`).click();
  const expected = await linesFrom(first, source);
  const lit = await litLines(first);
  check(JSON.stringify(lit) === JSON.stringify(expected), `after switching, ${target} lines ${expected} are lit, got ${lit}`);
  results.tabs = { from: before, to: target, lit };
}

async function checkPasses(page) {
  // The pass timeline: choosing a pass shows its IR diffed against the previous one, and its lines
  // are linked to the source like the stage panes' lines.
  const report = page.locator('.jp-KernellabReport .klv-report:not(.klv-compare)').first();
  const passes = report.locator('.klv-passes');
  await passes.scrollIntoViewIfNeeded();
  const names = await passes.locator('.klv-pass .klv-pass-name').allTextContents();
  check(names[0] === 'lower' && names.includes('cse') && names.includes('llvm-opt'), `the timeline lists the passes: ${names}`);
  const changed = await passes
    .locator('.klv-pass')
    .evaluateAll(nodes => nodes.filter(node => node.classList.contains('klv-changed')).map(node => Number(node.dataset.pass)));
  const chosen = changed.find(index => index > 0 && names[index] !== 'llvm' && names[index] !== 'asm');
  await passes.locator(`.klv-pass[data-pass="${chosen}"]`).click();
  const selected = await passes.locator('.klv-pass[aria-selected="true"]').getAttribute('data-pass');
  check(Number(selected) === chosen, `clicking pass ${chosen} (${names[chosen]}) selects it, got ${selected}`);
  const title = await passes.locator('.klv-pass-title').textContent();
  check(title.includes(names[chosen]) && /against pass \d+/.test(title), `the panel names the pass and its base: ${title}`);
  const kinds = await passes
    .locator('.klv-pass-panel .klv-dline')
    .evaluateAll(nodes => nodes.map(node => (node.classList.contains('klv-added') ? '+' : node.classList.contains('klv-removed') ? '-' : '=')));
  check(kinds.includes('+') || kinds.includes('-'), `pass ${names[chosen]} shows what it changed: ${kinds.join('')}`);
  const linked = passes.locator('.klv-pass-panel .klv-dline[data-source]').first();
  const source = Number(await linked.getAttribute('data-source'));
  await linked.hover();
  await page.waitForTimeout(100);
  const sourceLit = await report.locator('.klv-source .klv-line.klv-hl').evaluateAll(nodes => nodes.map(node => Number(node.dataset.line)));
  check(JSON.stringify(sourceLit) === JSON.stringify([source]), `hovering a line of the pass lights source line ${source}, got ${sourceLit}`);
  const first = stagePane(page, 0);
  const stageLit = await litLines(first);
  const expected = await linesFrom(first, source);
  check(JSON.stringify(stageLit) === JSON.stringify(expected), `and the stage pane's lines from it ${expected}, got ${stageLit}`);
  await report.locator(`.klv-source .klv-line[data-line="${source}"]`).hover();
  await page.waitForTimeout(100);
  const passLit = await passes.locator('.klv-pass-panel .klv-line.klv-hl').evaluateAll(nodes => nodes.map(node => Number(node.dataset.source)));
  check(passLit.length > 0 && passLit.every(line => line === source), `hovering source line ${source} lights the pass's lines from it: ${passLit}`);
  const same = await passes.locator('.klv-pass.klv-same').first().getAttribute('data-pass');
  if (same !== null) {
    await passes.locator(`.klv-pass[data-pass="${same}"]`).click();
    const note = await passes.locator('.klv-pass-note').textContent();
    check(/no change/.test(note), `an unchanged pass says so: ${note}`);
  }
  results.passes = { names, chosen: names[chosen], kinds: kinds.length, source };
}

async function checkCompare(page) {
  const compare = page.locator('.jp-KernellabReport .klv-compare').first();
  const summary = await compare.locator('.klv-diff-summary').first().textContent();
  check(/^tile: −\d+ \+\d+ lines/.test(summary), `the A/B view diffs the tile stage: ${summary}`);
  const headers = await compare.locator('.klv-abtable thead th').allTextContents();
  check(headers.includes('BLOCK=64') && headers.includes('BLOCK=256'), `the A/B table names both configs: ${headers}`);
  results.compare = { summary, headers };
}

async function screenshots(page, theme) {
  const report = page.locator('.jp-KernellabReport').first();
  await report.scrollIntoViewIfNeeded();
  await report.screenshot({ path: path.join(options.screenshots, `viewer-${theme}.png`) });
  const compare = page.locator('.jp-KernellabReport .klv-compare').first();
  await compare.scrollIntoViewIfNeeded();
  await compare.screenshot({ path: path.join(options.screenshots, `compare-${theme}.png`) });
  const passes = page.locator('.jp-KernellabReport .klv-passes').first();
  await passes.scrollIntoViewIfNeeded();
  await passes.screenshot({ path: path.join(options.screenshots, `passes-${theme}.png`) });
  await page.evaluate(() => document.querySelector('.jp-CodeCell .cm-content')?.scrollIntoView());
  await page.screenshot({ path: path.join(options.screenshots, `lab-${theme}.png`) });
}

// ---- the layout notebook: a report to resize and filter, and a cell with a compile error ----

async function runLayoutNotebook(page) {
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-Cell'), null, {
    timeout: 90000
  });
  await page.waitForFunction(
    () => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle',
    null,
    { timeout: 90000 }
  );
  await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells'));
  await page.waitForSelector('.jp-KernellabReport .klv-report .klv-panes', { timeout: 180000 });
  // The last cell fails to compile; it may be off screen (JupyterLab renders the cells in view),
  // so its output is awaited in the model.
  await page.waitForFunction(
    () => {
      const cells = window.jupyterapp.shell.currentWidget.content.model.cells;
      const last = cells.get(cells.length - 1);
      return last.outputs.length > 0;
    },
    null,
    { timeout: 180000 }
  );
}

/** Scroll the notebook to its last cell and wait for the cell's error output to render. */
async function showLastCell(page) {
  await page.evaluate(async () => {
    const notebook = window.jupyterapp.shell.currentWidget.content;
    notebook.activeCellIndex = notebook.widgets.length - 1;
    await notebook.scrollToItem(notebook.widgets.length - 1, 'start');
  });
  await page.locator('.jp-CodeCell .jp-OutputArea-output', { hasText: 'CompilationError' }).first().waitFor({ timeout: 30000 });
}

/** Widths and tops of the report's panes. */
async function paneBoxes(report) {
  return report.locator('.klv-panes > .klv-pane').evaluateAll(nodes =>
    nodes.map(node => {
      const box = node.getBoundingClientRect();
      return { left: box.left, top: box.top, width: box.width, display: getComputedStyle(node).display };
    })
  );
}

async function checkFilters(page, report) {
  const pane = report.locator('.klv-stage').first();
  await pane.locator('.klv-tab', { hasText: 'asm' }).first().click();
  const counts = await pane.locator('.klv-lines .klv-line').evaluateAll(nodes => {
    const shown = node => node.getBoundingClientRect().height > 0;
    const tally = { lines: nodes.length, directives: 0, unfolded: 0, shownDirectives: 0, filtered: 0, shown: 0 };
    for (const node of nodes) {
      const kind = [...node.classList].find(name => name.startsWith('klv-f-'));
      tally.filtered += kind ? 1 : 0;
      tally.directives += kind === 'klv-f-directive' ? 1 : 0;
      // long runs of lines with no source line are folded behind a button
      tally.unfolded += kind === 'klv-f-directive' && !node.closest('.klv-folded') ? 1 : 0;
      tally.shownDirectives += kind === 'klv-f-directive' && shown(node) ? 1 : 0;
      tally.shown += shown(node) ? 1 : 0;
    }
    return tally;
  });
  check(counts.directives > 0 && counts.shownDirectives === 0, `the asm's directives are hidden: ${JSON.stringify(counts)}`);
  // Links work with lines hidden: hovering a source line lights its (shown) asm lines.
  const counted = await pane.locator('.klv-lines .klv-at').evaluateAll(nodes => {
    const tally = {};
    for (const node of nodes) {
      if (node.textContent) {
        tally[node.textContent] = (tally[node.textContent] || 0) + 1;
      }
    }
    return tally;
  });
  const source = Number(Object.entries(counted).sort((a, b) => b[1] - a[1])[0][0]);
  const expected = await linesFrom(pane, source);
  await report.locator(`.klv-source .klv-line[data-line="${source}"]`).hover();
  await page.waitForTimeout(100);
  const lit = await litLines(pane);
  check(expected.length > 0 && JSON.stringify(lit) === JSON.stringify(expected), `source line ${source} lights asm ${expected}, got ${lit}`);
  await pane.screenshot({ path: path.join(options.screenshots, 'layout-asm-filtered.png') });
  await pane.locator('.klv-filters .klv-toggle[data-filter="directive"]').click();
  const shownAfter = await pane
    .locator('.klv-lines .klv-line.klv-f-directive')
    .evaluateAll(nodes => nodes.filter(node => node.getBoundingClientRect().height > 0).length);
  check(shownAfter > 0 && shownAfter === counts.unfolded,
    `turning the directive filter off shows the ${counts.unfolded} not folded away, got ${shownAfter}`);
  await pane.locator('.klv-filters .klv-toggle[data-filter="directive"]').click();
  results.filters = { ...counts, source, lit };
}

async function checkResize(page, report) {
  const before = await paneBoxes(report);
  const splitter = report.locator('.klv-panes > .klv-splitter').first();
  const box = await splitter.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 80, box.y + box.height / 2, { steps: 4 });
  await page.mouse.move(box.x + box.width / 2 + 160, box.y + box.height / 2, { steps: 4 });
  await page.mouse.up();
  const after = await paneBoxes(report);
  const grown = after[0].width - before[0].width;
  check(Math.abs(grown - 160) < 30, `dragging the splitter 160 px widens the source pane by about that, got ${grown}`);
  check(after[1].width < before[1].width - 100, `and narrows its neighbour (${before[1].width} -> ${after[1].width})`);
  const scroller = report.locator('.klv-stage .klv-scroll').first();
  const height = (await scroller.boundingBox()).height;
  const handle = await report.locator('.klv-height').boundingBox();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + 3);
  await page.mouse.down();
  await page.mouse.move(handle.x + handle.width / 2, handle.y + 123, { steps: 5 });
  await page.mouse.up();
  const taller = (await scroller.boundingBox()).height;
  check(taller > height + 60, `dragging the height handle down makes the panes taller (${height} -> ${taller})`);
  await report.locator('.klv-chips .klv-toggle', { hasText: 'full width' }).click();
  const wide = await paneBoxes(report);
  const shown = wide.filter(pane => pane.display !== 'none');
  const tops = shown.map(pane => Math.round(pane.top));
  check(new Set(tops).size === shown.length, `full width puts one pane per row: tops ${tops}`);
  check(shown.every(pane => Math.abs(pane.width - shown[0].width) < 2 && pane.width > before[0].width * 2),
    `each pane as wide as the output: ${shown.map(pane => pane.width)}`);
  await report.screenshot({ path: path.join(options.screenshots, 'layout-full-width.png') });
  await report.locator('.klv-chips .klv-toggle', { hasText: 'full width' }).click();
  await report.locator('.klv-chips .klv-toggle', { hasText: 'wrap lines' }).click();
  const wrapped = await report.locator('.klv-stage .klv-lines').first().evaluate(node => ({
    whiteSpace: getComputedStyle(node.querySelector('.klv-line')).whiteSpace,
    overflow: node.scrollWidth - node.parentElement.clientWidth
  }));
  check(wrapped.whiteSpace === 'pre-wrap' && wrapped.overflow <= 1, `wrapped lines fit the pane: ${JSON.stringify(wrapped)}`);
  await report.screenshot({ path: path.join(options.screenshots, 'layout-resized-wrapped.png') });
  results.resize = { before: before.map(pane => pane.width), after: after.map(pane => pane.width), height, taller, wrapped };
}

async function checkErrorLine(page) {
  await showLastCell(page);
  const output = page.locator('.jp-CodeCell .jp-OutputArea-output', { hasText: 'CompilationError' }).first();
  const text = await output.textContent();
  check(/CompilationError/.test(text) && !/run_cell_magic|magics\.py|Traceback/.test(text),
    `the compile error shows the kernel's frame only: ${text}`);
  const cell = page.locator('.jp-CodeCell', { has: page.locator('.jp-OutputArea-output', { hasText: 'CompilationError' }) });
  const marked = cell.locator('.cm-content .cm-line.cm-kernellab-error-line');
  await marked.first().waitFor({ timeout: 10000 });
  const lines = await cell.locator('.cm-content .cm-line').evaluateAll(nodes =>
    nodes.map((node, index) => (node.classList.contains('cm-kernellab-error-line') ? index + 1 : 0)).filter(Boolean)
  );
  const where = /cell, line (\d+), in /.exec(text);
  check(where && JSON.stringify(lines) === JSON.stringify([Number(where[1])]), `the editor marks line ${where && where[1]}, got ${lines}`);
  await cell.screenshot({ path: path.join(options.screenshots, 'error-line.png') });
  results.errorLine = { lines, message: text.split('\n').slice(-2).join(' ') };
}

async function layoutMain(page) {
  await runLayoutNotebook(page);
  const report = page.locator('.jp-KernellabReport .klv-report').first();
  await report.scrollIntoViewIfNeeded();
  await checkFilters(page, report);
  await checkResize(page, report);
  await checkErrorLine(page);
}

async function main() {
  const browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']
  });
  const pageErrors = [];
  try {
    const page = await browser.newPage({ viewport: { width: 1500, height: 1100 } });
    page.on('pageerror', error => pageErrors.push(String(error)));
    await page.goto(`${options.url}/lab/tree/${options.notebook}?token=${options.token}`, { timeout: 90000 });
    if (options.mode === 'layout') {
      await layoutMain(page);
      console.log(JSON.stringify(results));
      return;
    }
    await runAll(page);
    await checkEditor(page);
    const source = await checkHover(page);
    await checkTabs(page, source);
    await checkPasses(page);
    await checkCompare(page);
    await screenshots(page, 'light');
    await page.evaluate(() => window.jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Dark' }));
    await page.waitForSelector('body[data-jp-theme-light="false"]', { state: 'attached', timeout: 30000 });
    await page.waitForTimeout(500);
    await screenshots(page, 'dark');
    const ours = pageErrors.filter(error => /klv|kernellab/i.test(error));
    check(ours.length === 0, `no page errors from the extension: ${ours}`);
    results.pageErrors = pageErrors;
  } finally {
    await browser.close();
  }
  console.log(JSON.stringify(results));
}

main().catch(error => {
  console.error(error && error.stack ? error.stack : String(error));
  console.log(JSON.stringify(results));
  process.exit(1);
});
