// Drives JupyterLab in Debian's chromium (playwright-core) through a live sweep and a tuning panel:
// the sweep's chart redraws while it runs, ends as an interactive Plotly figure (hover names the
// config, drag zooms, a legend click hides a config) that follows the dark theme; then the
// notebook is saved, the page reloaded and the notebook reopened: its widgets show, no error.
// Run by test_plots.py with {url, token, notebook, chromium, extension, screenshots} as JSON in argv;
// prints one JSON line of results, exits non-zero with the reason on the first failed check.
'use strict';
const path = require('path');
const { createRequire } = require('module');

const options = JSON.parse(process.argv[2]);
const { chromium } = createRequire(path.join(options.extension, 'package.json'))('playwright-core');

const results = {};
const ERRORS = '.jp-RenderedText[data-mime-type="application/vnd.jupyter.error"]';
const FINAL_CHART = '.jp-OutputArea-output > .jp-RenderedPlotly .plot-container, .jp-RenderedPlotly.jp-OutputArea-output .plot-container';

function check(condition, message) {
  if (!condition) {
    throw new Error(`check failed: ${message}`);
  }
}

async function openNotebook(page) {
  await page.goto(`${options.url}/lab/tree/${options.notebook}?token=${options.token}`, { timeout: 90000 });
  await page.waitForFunction(() => window.jupyterapp && document.querySelector('.jp-NotebookPanel .jp-Cell'), null, {
    timeout: 90000
  });
}

async function waitForIdleKernel(page) {
  await page.waitForFunction(
    () => window.jupyterapp.shell.currentWidget?.sessionContext?.session?.kernel?.status === 'idle',
    null,
    { timeout: 90000 }
  );
}

// Records, in the page, every live redraw of the sweep's chart: each is a new Plotly output in
// the widget's Output area, with the points measured so far.
async function watchRedraws(page) {
  await page.evaluate(() => {
    window.klRedraws = [];
    const seen = new WeakSet();
    const observer = new MutationObserver(() => {
      for (const plot of document.querySelectorAll('.jupyter-widgets .jp-RenderedPlotly')) {
        const points = plot.querySelectorAll('.scatterlayer .point').length;
        if (!seen.has(plot) && points > 0) {
          seen.add(plot);
          window.klRedraws.push(points);
        }
      }
    });
    observer.observe(document.body, { childList: true, subtree: true });
  });
}

async function runAll(page) {
  await waitForIdleKernel(page);
  await watchRedraws(page);
  await page.evaluate(() => window.jupyterapp.commands.execute('notebook:run-all-cells'));
  await page.waitForSelector(`${FINAL_CHART}, ${ERRORS}`, { timeout: 240000 });
  await page.waitForSelector(`.widget-slider, ${ERRORS}`, { timeout: 120000 });
  const errors = await page.$$eval(ERRORS, nodes => nodes.map(node => node.textContent));
  check(errors.length === 0, `the notebook ran without errors: ${errors.join('\n')}`);
  await waitForIdleKernel(page);
  const progress = await page.locator('.widget-progress').count();
  check(progress === 0, 'the live view (progress bar and widgets) was replaced by the final chart');
  const redraws = await page.evaluate(() => window.klRedraws);
  check(redraws.length >= 3, `the chart redrew during the sweep: ${redraws}`);
  check(redraws[redraws.length - 1] > redraws[0], `with more points each time: ${redraws}`);
  results.redraws = redraws;
}

// The sweep's table (the autotuner's columns) is shown once, by `run.results`, and scrolls
// sideways inside its output instead of running past the cell.
async function checkTable(page) {
  const table = await page.evaluate(() => {
    const tables = [...document.querySelectorAll('.jp-OutputArea-output table.dataframe')];
    const wide = tables[tables.length - 1];
    const output = wide.closest('.jp-OutputArea-output');
    const cell = wide.closest('.jp-Cell');
    return {
      tables: tables.length,
      columns: wide.querySelectorAll('thead th').length,
      outputRight: output.getBoundingClientRect().right,
      cellRight: cell.getBoundingClientRect().right,
      overflowX: getComputedStyle(output).overflowX,
      scrolls: output.scrollWidth > output.clientWidth
    };
  });
  check(table.tables === 1, `one table in the notebook (the sweep leaves none of its own): ${table.tables}`);
  check(table.outputRight <= table.cellRight + 1, `the table's output stays inside its cell: ${JSON.stringify(table)}`);
  check(!table.scrolls || table.overflowX === 'auto' || table.overflowX === 'scroll',
        `a table wider than its output scrolls: ${JSON.stringify(table)}`);
  results.table = table;
}

function chart(page) {
  return page.locator('.jp-RenderedPlotly').filter({ has: page.locator('.plot-container') }).first();
}

async function checkHover(page) {
  const plot = chart(page);
  await plot.scrollIntoViewIfNeeded();
  const height = await plot.evaluate(node => node.getBoundingClientRect().height);
  check(height > 200, `the chart takes its room in the output (height ${height})`);
  const point = plot.locator('.scatterlayer .trace .point').last();
  const box = await point.boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  const hover = plot.locator('.hoverlayer .hovertext');
  await hover.first().waitFor({ timeout: 5000 });
  const text = await hover.first().textContent();
  check(/BLOCK=\d+, warps=\d+, stages=\d+/.test(text), `the tooltip names the config: ${text}`);
  check(/GB\/s = [\d.]+/.test(text) && /n = [\d,]+/.test(text), `and the size and value: ${text}`);
  results.hover = text;
  await page.mouse.move(5, 5);
}

async function xRange(plot) {
  return plot.evaluate(node => [...node._fullLayout.xaxis.range]);
}

async function checkZoomAndLegend(page) {
  const plot = chart(page);
  const before = await xRange(plot);
  const area = await plot.locator('.nsewdrag').first().boundingBox();
  const y = area.y + area.height / 2;
  await page.mouse.move(area.x + area.width * 0.3, y);
  await page.mouse.down();
  await page.mouse.move(area.x + area.width * 0.5, y, { steps: 8 });
  await page.mouse.move(area.x + area.width * 0.7, y + 2, { steps: 8 });
  await page.mouse.up();
  await page.waitForTimeout(300);
  const after = await xRange(plot);
  check(after[1] - after[0] < (before[1] - before[0]) * 0.7, `dragging zooms in: ${before} -> ${after}`);
  results.zoom = { before, after };
  await plot.locator('.legend .traces .legendtoggle').first().click({ force: true });
  await page.waitForTimeout(1000);             // plotly waits out its double-click delay
  const visible = await plot.evaluate(node => node._fullData.map(trace => `${trace.name}:${trace.visible}`));
  check(visible.some(state => state.endsWith(':legendonly')), `a legend click hides a config: ${visible}`);
  results.legend = visible;
  await plot.locator('.legend .traces .legendtoggle').first().click({ force: true });
  await page.mouse.dblclick(area.x + area.width / 2, y);
  await page.waitForTimeout(1000);
  const reset = await xRange(plot);
  check(Math.abs(reset[0] - before[0]) < 1e-6 && Math.abs(reset[1] - before[1]) < 1e-6, `a double-click resets: ${reset}`);
  const shown = await plot.evaluate(node => node._fullData.every(trace => trace.visible === true));
  check(shown, 'a second legend click shows the config again');
}

async function themeColours(page) {
  return chart(page).evaluate(node => {
    const text = node.querySelector('.main-svg .xtitle, .main-svg .g-xtitle text');
    const probe = document.createElement('span');
    probe.style.color = 'var(--jp-ui-font-color1)';
    document.body.appendChild(probe);
    const theme = getComputedStyle(probe).color;
    probe.remove();
    return {
      text: getComputedStyle(text).fill,
      theme,
      paper: getComputedStyle(node.querySelector('.main-svg')).backgroundColor,
      page: getComputedStyle(node.closest('.jp-Notebook')).backgroundColor
    };
  });
}

async function checkThemes(page) {
  const light = await themeColours(page);
  await chart(page).screenshot({ path: path.join(options.screenshots, 'sweep-chart-light.png') });
  await page.evaluate(() => window.jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Dark' }));
  await page.waitForSelector('body[data-jp-theme-light="false"]', { state: 'attached', timeout: 30000 });
  await page.waitForTimeout(800);
  const dark = await themeColours(page);
  await chart(page).screenshot({ path: path.join(options.screenshots, 'sweep-chart-dark.png') });
  for (const [name, colours] of Object.entries({ light, dark })) {
    check(colours.text === colours.theme, `${name}: the chart's text has the theme's font colour: ${JSON.stringify(colours)}`);
  }
  check(light.text !== dark.text, `the text colour changes with the theme: ${light.text} / ${dark.text}`);
  check(dark.paper === 'rgba(0, 0, 0, 0)', `the chart's background is transparent on the dark page: ${dark.paper}`);
  results.themes = { light, dark };
  await page.evaluate(() => window.jupyterapp.commands.execute('apputils:change-theme', { theme: 'JupyterLab Light' }));
  await page.waitForSelector('body[data-jp-theme-light="true"]', { state: 'attached', timeout: 30000 });
}

async function checkReopen(page) {
  await page.evaluate(() => window.jupyterapp.commands.execute('docmanager:save'));
  await page.waitForFunction(() => !window.jupyterapp.shell.currentWidget?.context?.model?.dirty, null, { timeout: 30000 });
  await page.evaluate(() => window.jupyterapp.commands.execute('kernelmenu:shutdown'));
  await page.waitForTimeout(1000);
  await openNotebook(page);                      // a fresh page: no widget models in memory
  await page.waitForSelector('.jp-OutputArea-output', { timeout: 60000 });
  await page.waitForTimeout(3000);               // the widget manager restores what it can
  const shown = await page.evaluate(() => ({
    errors: [...document.querySelectorAll('.jp-OutputArea-output')].map(node => node.textContent)
      .filter(text => /Error displaying widget/.test(text)),
    sliders: document.querySelectorAll('.widget-slider').length,
    charts: document.querySelectorAll('.jp-RenderedPlotly').length
  }));
  check(shown.errors.length === 0, `the reopened notebook shows no widget error: ${shown.errors}`);
  check(shown.sliders > 0, `the explorer's sliders come back from the saved widget state: ${JSON.stringify(shown)}`);
  check(shown.charts > 0, `and the sweep's chart: ${JSON.stringify(shown)}`);
  results.reopened = shown;
  await page.locator('.widget-slider').first().scrollIntoViewIfNeeded();
  await page.screenshot({ path: path.join(options.screenshots, 'reopened.png') });
}

async function main() {
  const browser = await chromium.launch({
    executablePath: options.chromium,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage']
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1300, height: 1000 } });
    await openNotebook(page);
    await runAll(page);
    await checkTable(page);
    await checkHover(page);
    await checkZoomAndLegend(page);
    await checkThemes(page);
    await checkReopen(page);
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
