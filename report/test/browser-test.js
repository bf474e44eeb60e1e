#!/usr/bin/env node
// Opens synthaudit HTML reports in Debian's headless Chromium (driven by playwright-core; no
// browser is downloaded) and checks them as a person would see them:
//   - no console error, no uncaught exception, no request leaving the file (offline);
//   - every plot container holds a rendered SVG or canvas, and there are as many as the
//     embedded results document says there should be for the default view;
//   - the scorecard shows every candidate;
//   - the page opens on the executive summary: the recommendation and each candidate's status as
//     the embedded verdict says, the detail sections collapsed, and in print layout the summary
//     fits one A4 page;
//   - no text on the page is raw JSON;
//   - a screenshot is saved.
// Usage: node browser-test.js SCREENSHOT_DIR NAME=REPORT.html [NAME=REPORT.html ...]
// Options per report: NAME=REPORT.html:all-kinds:click (every plot kind must be drawn; click every
// candidate button and 'show more' button and check the plots again).
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');
const {chromium} = require('playwright-core');

const CHROMIUM = process.env.SYNTHAUDIT_CHROMIUM || '/usr/bin/chromium';
// Every wait below is for a condition (page loaded, plots drawn), never a fixed sleep; this is
// only the longest a condition may take before the test gives up, generous for a loaded machine.
const WAIT_MS = 120000;
const PLOTS_PAGE = 6;  // plots report.js draws per metric before its 'show more' button
const KINDS = ['histogram', 'density', 'ecdf', 'qq', 'bars', 'heatmap', 'contour', 'roc', 'roc_log', 'scatter', 'line', 'forest'];

function fail(message) {
  console.error('browser-test: FAIL: ' + message);
  process.exitCode = 1;
}

// What report.js should draw by default, computed from the embedded document independently of
// report.js: for each metric that ran, the plots of its first candidate's combined result or
// first replicate (those with a known kind and data), plus the risk–utility map.
function expectedPlots(documentJson, scorecardJson) {
  let count = 0;
  const kinds = new Set();
  for (const m of documentJson.metrics || []) {
    if (m.skipped || !(m.candidates || []).length) continue;
    const c = m.candidates[0];
    const result = c.combined || (c.replicates || [])[0];
    const plots = ((result && result.details && result.details.plots) || []).slice(0, PLOTS_PAGE);
    for (const p of plots) {
      if (KINDS.includes(p.kind) && Array.isArray(p.data) && p.data.length) {
        count++;
        kinds.add(p.kind);
      }
    }
  }
  if (scorecardJson.headlines.length && scorecardJson.candidates.length) count++;
  return {count, kinds};
}

async function checkReport(context, name, file, options, outDir) {
  const page = await context.newPage();
  page.setDefaultTimeout(WAIT_MS);
  const problems = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') problems.push('console error: ' + msg.text());
    if (msg.type() === 'warning' && /^(WARN|\[Vega)/.test(msg.text())) problems.push('vega warning: ' + msg.text());
  });
  page.on('pageerror', (err) => problems.push('uncaught exception: ' + err.message));
  page.on('dialog', (d) => { problems.push('dialog opened: ' + d.message()); d.dismiss(); });
  await page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file:') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    problems.push('network request (the report must work offline): ' + url);
    return route.abort();
  });

  const started = Date.now();
  await page.goto('file://' + path.resolve(file), {waitUntil: 'load', timeout: WAIT_MS});
  await page.waitForFunction(() => window.synthauditReady !== undefined, null, {timeout: WAIT_MS});
  const drawn = await page.evaluate(() => window.synthauditReady.then((n) => ({ok: true, n}), (e) => ({ok: false, error: String(e)})));
  if (!drawn.ok) problems.push('a plot failed to render: ' + drawn.error);

  const facts = await page.evaluate(() => {
    const doc = JSON.parse(document.getElementById('synthaudit-results').textContent);
    const card = JSON.parse(document.getElementById('synthaudit-scorecard').textContent);
    const plots = [...document.querySelectorAll('.plot')].map((p) => ({
      kind: p.dataset.kind, title: p.dataset.title,
      drawn: !!p.querySelector('svg.marks, canvas.marks'),
      marks: p.querySelectorAll('svg.marks path, svg.marks rect, svg.marks line, svg.marks text').length,
    }));
    const scorecardCandidates = [...document.querySelectorAll('#scorecard table.scorecard th.candidate')].map((th) => th.textContent);
    const recommendation = (document.querySelector('#executive .recommendation') || {}).textContent || '';
    const statuses = [...document.querySelectorAll('#executive .verdict')].map((v) => ({
      name: v.dataset.candidate, status: v.querySelector('.status').textContent}));
    const sections = [...document.querySelectorAll('details.section')].map((d) => ({id: d.id, open: d.open}));
    const firstSection = (document.querySelector('main > *') || {}).id;
    // Every text node outside the embedded data and scripts, open or collapsed.
    const rawJson = [];
    const walker = document.createTreeWalker(document.getElementById('app'), NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      const t = n.textContent.trim();
      if (/^(\{"|\[\{|\[\[|\[")/.test(t) || t.includes('[object Object]')) rawJson.push(t.slice(0, 80));
    }
    const subgroupTables = [...document.querySelectorAll('details.subgroups')].map((d) => d.querySelectorAll('tbody tr').length);
    const subgroupBaselineColumns = [...document.querySelectorAll('details.subgroups thead th')]
      .filter((th) => th.textContent.endsWith('(baseline)')).length;
    const worstSubgroupLines = document.querySelectorAll('.verdict li.subgroup').length;
    // Related tables: one row per dataset and relation in the structure section.
    const relationRows = document.querySelectorAll('#structure table.relations tbody tr').length;
    // The data section: each column's variable label and each count of values read as missing.
    const dataText = (document.getElementById('data') || {}).textContent || '';
    return {doc, card, plots, scorecardCandidates, dataText, recommendation, statuses, sections, firstSection, rawJson, subgroupTables,
      subgroupBaselineColumns, worstSubgroupLines, relationRows, injected: window.__fixtureInjected === 1};
  });
  const expected = expectedPlots(facts.doc, facts.card);
  if (facts.plots.length !== expected.count)
    problems.push(`expected ${expected.count} plot containers, found ${facts.plots.length}`);
  for (const p of facts.plots)
    if (!p.drawn) problems.push(`plot '${p.title}' (${p.kind}) holds no rendered SVG or canvas`);
  const names = facts.doc.candidates.map((c) => c.name);
  if (JSON.stringify(facts.scorecardCandidates) !== JSON.stringify(names))
    problems.push(`scorecard shows candidates ${JSON.stringify(facts.scorecardCandidates)}, expected ${JSON.stringify(names)}`);
  if (facts.injected) problems.push('markup from a metric doc was executed');
  if (facts.firstSection !== 'executive') problems.push(`the page opens on '${facts.firstSection}', not the executive summary`);
  const verdict = facts.doc.verdict;
  if (verdict) {
    const expected = verdict.recommended ? 'Recommended: ' + verdict.recommended : 'No candidate is recommended';
    if (!facts.recommendation.startsWith(expected))
      problems.push(`recommendation reads '${facts.recommendation}', expected it to start with '${expected}'`);
    const want = JSON.stringify(verdict.candidates.map((c) => ({name: c.name, status: c.status})));
    if (JSON.stringify(facts.statuses) !== want)
      problems.push(`candidate statuses ${JSON.stringify(facts.statuses)}, expected ${want}`);
  }
  for (const c of facts.doc.columns || [])
    if (c.label && !facts.dataText.includes(c.label)) problems.push(`the variable label '${c.label}' of column '${c.name}' is not shown`);
  for (const m of facts.doc.treated_as_missing || [])
    if (!facts.dataText.includes(`${m.column}${m.code === null ? 'declared missing in the file' : m.code}${m.count === null ? '—' : m.count}`))
      problems.push(`what was read as missing in '${m.column}' of ${m.file} (${m.code}: ${m.count}) is not shown`);
  if (options.includes('labels') && !(facts.doc.columns || []).some((c) => c.label))
    problems.push('the document has no variable label to show');
  const datasetsOfRelations = (facts.doc.relations || []).reduce((n, r) => n + (r.datasets || []).length, 0);
  if (facts.relationRows !== datasetsOfRelations)
    problems.push(`the structure section shows ${facts.relationRows} relation rows, the results hold ${datasetsOfRelations}`);
  if (options.includes('relations') && !datasetsOfRelations) problems.push('the document has no related tables to show');
  if (!facts.sections.length) problems.push('no collapsible detail sections');
  for (const d of facts.sections) if (d.open) problems.push(`detail section '${d.id}' is open on load`);
  for (const t of facts.rawJson) problems.push(`raw JSON shown on the page: ${t}`);
  // With by: each metric that ran in subgroups has one subgroup table, none of them empty.
  const withSubgroups = facts.doc.metrics.filter((m) => !m.skipped && (m.subgroups || []).length).length;
  if (facts.subgroupTables.length !== withSubgroups)
    problems.push(`expected ${withSubgroups} subgroup tables, found ${facts.subgroupTables.length}`);
  if (facts.subgroupTables.some((rows) => rows === 0)) problems.push('a subgroup table has no rows');
  // Subgroups carry their own baselines (a column each), and each candidate with a worst subgroup
  // has its line in its verdict card.
  const subgroupBaselines = facts.doc.metrics.some((m) => (m.subgroups || []).some((g) => (g.candidates || []).some((c) => c.baseline)));
  if (subgroupBaselines && !facts.subgroupBaselineColumns) problems.push('subgroup baselines are not shown');
  const judged = ((facts.doc.subgroups || {}).judged || {}).candidates || [];
  const withWorst = facts.doc.verdict ? judged.filter((c) => c.worst).length : 0;
  if (facts.worstSubgroupLines !== withWorst)
    problems.push(`expected ${withWorst} worst-subgroup lines, found ${facts.worstSubgroupLines}`);
  // The committee paper: in print layout the executive page fits one A4 page (210 x 297 mm less
  // 12 mm margins, at 96 px per inch).
  await page.emulateMedia({media: 'print'});
  await page.setViewportSize({width: Math.round((210 - 24) / 25.4 * 96), height: 1000});
  const printHeight = await page.evaluate(() => {
    const header = document.querySelector('header.top').getBoundingClientRect();
    const exec = document.getElementById('executive').getBoundingClientRect();
    return exec.bottom - Math.min(header.top, exec.top);
  });
  const a4 = (297 - 24) / 25.4 * 96;
  if (printHeight > a4) problems.push(`the executive page is ${Math.round(printHeight)} px tall in print layout; one A4 page holds ${Math.round(a4)}`);
  const printShot = path.join(outDir, name + '-print.png');
  await page.locator('#executive').screenshot({path: printShot});
  await page.emulateMedia({media: 'screen'});
  await page.setViewportSize({width: 1360, height: 900});
  // A person opens the details to click through them.
  await page.evaluate(() => document.querySelectorAll('details.section').forEach((d) => { d.open = true; }));
  // The metrics' tables (details.tables): one drawn for each of the first candidate's, and none
  // wider than the page.
  const tableFacts = await page.evaluate(() => {
    const doc = JSON.parse(document.getElementById('synthaudit-results').textContent);
    let expected = 0;
    for (const m of doc.metrics || []) {
      const c = (m.candidates || [])[0];
      const result = c && (c.combined || (c.replicates || [])[0]);
      expected += ((result && result.details && result.details.tables) || []).length;
    }
    const page = document.documentElement.clientWidth;
    const tables = [...document.querySelectorAll('.metric-table')];
    return {expected, drawn: tables.length, wide: tables
      .filter((t) => t.querySelector('table').getBoundingClientRect().width > page)
      .map((t) => t.querySelector('.note').textContent)};
  });
  if (tableFacts.drawn < tableFacts.expected) problems.push(`${tableFacts.drawn} metric tables drawn, the results hold ${tableFacts.expected}`);
  for (const w of tableFacts.wide) problems.push(`the table '${w}' is wider than the page`);
  // A person clicks through: every candidate of every metric, then every 'show more' button;
  // the plots must draw each time.
  const allDrawn = () => [...document.querySelectorAll('.plot')].every((p) => p.querySelector('svg.marks, canvas.marks'));
  let clicks = 0;
  if (options.includes('click')) {
    const total = await page.locator('.metric .controls button:not(.more-plots)').count();
    for (let i = 0; i < total; i++) {
      const button = page.locator('.metric .controls button:not(.more-plots)').nth(i);
      const label = await button.textContent();
      await button.click();
      clicks++;
      const ok = await page.waitForFunction(allDrawn, null, {timeout: WAIT_MS}).then(() => true, () => false);
      if (!ok) {
        problems.push(`after choosing candidate '${label}', some plots did not render`);
        break;  // one is enough; keep a failing run short
      }
    }
    // Back to each metric's first candidate (the last button may be a baseline without plots),
    // then every 'show more'.
    for (const first of await page.$$('.metric .controls button:not(.more-plots):first-of-type')) await first.click();
    await page.waitForFunction(allDrawn, null, {timeout: 15000}).catch(() => problems.push('plots did not render again'));
    for (let guard = 0; guard < 50 && (await page.locator('button.more-plots').count()) > 0; guard++) {
      await page.locator('button.more-plots').first().click();
      clicks++;
    }
    await page.waitForFunction(allDrawn, null, {timeout: WAIT_MS})
      .catch(() => problems.push("after 'show more', some plots did not render"));
  }
  if (options.includes('all-kinds')) {
    const drawnKinds = new Set(await page.evaluate(() => [...document.querySelectorAll('.plot')]
      .filter((p) => p.querySelector('svg.marks, canvas.marks')).map((p) => p.dataset.kind)));
    for (const k of KINDS) if (!drawnKinds.has(k)) problems.push(`no '${k}' plot was drawn`);
    if (!drawnKinds.has('risk-utility-map')) problems.push('no risk–utility map was drawn');
  }

  // The viewport only: a full-page screenshot of every plot was the test's slowest step.
  const shot = path.join(outDir, name + '.png');
  await page.screenshot({path: shot});
  const summaryShot = path.join(outDir, name + '-summary.png');
  await page.locator('#executive').screenshot({path: summaryShot});
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  console.log(`browser-test: ${name}: ${facts.plots.length} plots drawn (${[...new Set(facts.plots.map((p) => p.kind))].join(', ')}), ` +
    `scorecard candidates ${facts.scorecardCandidates.join(', ')}, ${facts.statuses.map((v) => v.name + ' ' + v.status).join(', ') || 'no verdict'}, ` +
    `executive page ${Math.round(printHeight)} of ${Math.round(a4)} px in print, ${tableFacts.drawn} metric tables (none wider than the page), ${clicks} buttons clicked, ${seconds} s; screenshot ${shot}`);
  for (const p of problems) fail(`${name}: ${p}`);
  await page.close();
}

async function main() {
  const [outDir, ...reports] = process.argv.slice(2);
  if (!outDir || !reports.length) {
    console.error('usage: browser-test.js SCREENSHOT_DIR NAME=REPORT.html[:all-kinds] ...');
    process.exit(2);
  }
  if (!fs.existsSync(CHROMIUM)) {
    console.error(`browser-test: FAIL: ${CHROMIUM} not found; install Debian's chromium (scripts/install-deps)`);
    process.exit(1);
  }
  fs.mkdirSync(outDir, {recursive: true});
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'synthaudit-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: {width: 1360, height: 900},
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    timeout: WAIT_MS,
  });
  try {
    for (const spec of reports) {
      const eq = spec.indexOf('=');
      const [file, ...options] = spec.slice(eq + 1).split(':');
      await checkReport(context, spec.slice(0, eq), file, options, outDir);
    }
  } finally {
    await context.close();
    fs.rmSync(profile, {recursive: true, force: true});
  }
  if (!process.exitCode) console.log('browser-test: all reports passed');
}

main().catch((err) => {
  console.error('browser-test: FAIL: ' + (err && err.stack ? err.stack : err));
  process.exit(1);
});
