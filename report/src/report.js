// synthaudit report: renders report.html from the embedded results document ("synthaudit/1")
// and its scorecard. Inlined by the build after vega, vega-lite and vega-embed. Knows no metric:
// everything comes from the document (metrics[], headlines[], details.plots[] as documented in
// src/metrics/metric.hpp). One Vega-Lite template per plot kind (PLOT_TEMPLATES below).
(function () {
  'use strict';

  const doc = JSON.parse(document.getElementById('synthaudit-results').textContent);
  const card = JSON.parse(document.getElementById('synthaudit-scorecard').textContent);
  const pending = [];
  const PAGE_ROWS = 20;
  const PLOTS_PAGE = 6;  // plots drawn per metric before a 'show more' button
  const FAMILIES = [
    ['general', 'General utility', 'Do the distributions match?'],
    ['propensity', 'Propensity-score utility', 'Can a classifier tell real from synthetic records?'],
    ['specific', 'Specific utility', 'Do the analyses users will run give the same inferences?'],
    ['key-disclosure', 'Disclosure risk: key variables', 'Can an intruder who knows some attributes match or learn about people?'],
    ['distance-disclosure', 'Disclosure risk: distances', 'Are synthetic records too close to real ones?'],
    ['attack-disclosure', 'Disclosure risk: attacks', 'Can an attacker single out, link or infer real people better than from records that were not used?'],
    ['sdc-risk', 'Disclosure control measures', 'How do the measures agencies apply to anonymised microdata compare between the real and the synthetic data?'],
  ];
  const DATASET_COLORS = {domain: ['confidential', 'synthetic', 'holdout'], range: ['#4c78a8', '#f58518', '#54a24b']};

  // ---------- small DOM helpers (text always goes in as text, never as HTML) ----------
  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    if (attrs) {
      for (const [k, v] of Object.entries(attrs)) {
        if (v === undefined || v === null || v === false) continue;
        if (k === 'class') node.className = v;
        else if (k === 'text') node.textContent = v;
        else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
        else node.setAttribute(k, v === true ? '' : v);
      }
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue;
      node.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
    }
    return node;
  }
  function fmt(v) {
    if (v === null || v === undefined || (typeof v === 'number' && !isFinite(v))) return 'NA';
    if (typeof v !== 'number') return String(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (Number.isInteger(v) && a < 1e9) return String(v);
    if (a >= 1e5 || a < 1e-3) return v.toExponential(3);
    return String(Number(v.toPrecision(4)));
  }
  // Baseline entries (the holdout or resamples in place of the synthetic data) sit beside the
  // candidates in each metric; their name says so.
  function entryName(c) { return c.baseline ? `${c.name} (baseline)` : c.name; }
  function slug(text) { return String(text).toLowerCase().replace(/[^a-z0-9]+/g, '-'); }
  function familyLabel(f) { const x = FAMILIES.find((e) => e[0] === f); return x ? x[1] : f; }
  function betterText(h) { return h.ideal_text || (h.better === 'higher' ? 'higher is better' : 'lower is better'); }

  // Minimal Markdown for the metric docs: paragraphs, lists, code blocks, `code`, **bold**,
  // *italic*, [text](url). Escapes first, so a doc can never inject markup.
  function markdown(text) {
    const escape = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
    const inline = (s) => escape(s)
      .replace(/`([^`]+)`/g, '<code>$1</code>')
      .replace(/\*\*([^*]+)\*\*/g, '<strong>$1</strong>')
      .replace(/(^|[^*])\*([^*\s][^*]*)\*/g, '$1<em>$2</em>')
      .replace(/\[([^\]]+)\]\((https?:[^)\s]+)\)/g, '<a href="$2" rel="noreferrer">$1</a>');
    const out = [];
    let para = [], list = null, code = null;
    const flush = () => {
      if (para.length) out.push('<p>' + inline(para.join(' ')) + '</p>');
      para = [];
      if (list) out.push('<ul>' + list.map((i) => '<li>' + inline(i) + '</li>').join('') + '</ul>');
      list = null;
    };
    for (const line of String(text || '').split('\n')) {
      if (code !== null) {
        if (/^\s*```/.test(line)) { out.push('<pre>' + escape(code.join('\n')) + '</pre>'); code = null; }
        else code.push(line);
        continue;
      }
      if (/^\s*```/.test(line)) { flush(); code = []; continue; }
      const item = line.match(/^\s*[-*]\s+(.*)$/);
      if (item) { if (para.length) { out.push('<p>' + inline(para.join(' ')) + '</p>'); para = []; } (list = list || []).push(item[1]); continue; }
      if (/^\s*$/.test(line)) { flush(); continue; }
      const heading = line.match(/^\s*#+\s+(.*)$/);
      if (heading) { flush(); out.push('<p><strong>' + inline(heading[1]) + '</strong></p>'); continue; }
      if (list && /^\s+/.test(line)) { list[list.length - 1] += ' ' + line.trim(); continue; }
      if (list) flush();
      para.push(line.trim());
    }
    if (code !== null) out.push('<pre>' + escape(code.join('\n')) + '</pre>');
    flush();
    const div = el('div', {class: 'doc'});
    div.innerHTML = out.join('\n');
    return div;
  }

  // A table of rows (arrays of cells) with a header; paginated with a filter when long.
  function pagedTable(header, rows, options) {
    options = options || {};
    const wrap = el('div', {class: 'paged-table'});
    const table = el('table', {class: options.className});
    const thead = el('thead', null, el('tr', null, header.map((h) => el('th', null, h))));
    const tbody = el('tbody');
    table.append(thead, tbody);
    let page = 0, filter = '';
    const pager = el('div', {class: 'pager'});
    const filtered = () => (filter ? rows.filter((r) => r.text.toLowerCase().includes(filter)) : rows);
    function draw() {
      const list = filtered();
      const pages = Math.max(1, Math.ceil(list.length / PAGE_ROWS));
      page = Math.min(page, pages - 1);
      tbody.replaceChildren(...list.slice(page * PAGE_ROWS, (page + 1) * PAGE_ROWS).map((r) => r.node()));
      if (rows.length > PAGE_ROWS) {
        status.textContent = list.length === 0 ? 'no rows' :
          `rows ${page * PAGE_ROWS + 1}–${Math.min(list.length, (page + 1) * PAGE_ROWS)} of ${list.length}`;
        prev.disabled = page === 0;
        next.disabled = page >= pages - 1;
      }
    }
    const status = el('span');
    const prev = el('button', {type: 'button', onclick: () => { page--; draw(); }}, '‹ previous');
    const next = el('button', {type: 'button', onclick: () => { page++; draw(); }}, 'next ›');
    const search = el('input', {type: 'search', placeholder: 'filter rows', oninput: (e) => { filter = e.target.value.toLowerCase(); page = 0; draw(); }});
    if (rows.length > PAGE_ROWS) pager.append(prev, next, search, ' ', status);
    wrap.append(table);
    if (rows.length > PAGE_ROWS) wrap.append(pager);
    draw();
    return wrap;
  }
  function row(cells, text) {
    return {text: text, node: () => el('tr', null, cells.map((c) => (c instanceof Node ? c.cloneNode(true) : el('td', {class: typeof c === 'number' || c === null ? 'num' : null}, typeof c === 'number' || c === null ? fmt(c) : String(c)))))};
  }

  // ---------- Vega-Lite: one template per plot kind ----------
  function colorField(records) {
    const first = records[0] || {};
    if ('dataset' in first) return 'dataset';
    if ('series' in first) return 'series';
    return null;
  }
  // Datasets keep their colour in every plot (confidential blue, synthetic orange, holdout
  // green); the legend lists only those present.
  function colorEncoding(field, records) {
    if (!field) return undefined;
    if (field !== 'dataset') return {field: field, type: 'nominal', title: field};
    const present = new Set((records || []).map((r) => r.dataset));
    const domain = DATASET_COLORS.domain.filter((d) => present.has(d));
    const extra = [...present].filter((d) => !DATASET_COLORS.domain.includes(d)).sort();
    const range = domain.map((d) => DATASET_COLORS.range[DATASET_COLORS.domain.indexOf(d)]);
    const spare = ['#e45756', '#72b7b2', '#b279a2', '#9d755d', '#bab0ac'];
    return {field: 'dataset', type: 'nominal', title: 'data',
      scale: {domain: domain.concat(extra), range: range.concat(extra.map((_, i) => spare[i % spare.length]))}};
  }
  function extent(records, fields) {
    let lo = Infinity, hi = -Infinity;
    for (const r of records) for (const f of fields) {
      const v = r[f];
      if (typeof v === 'number' && isFinite(v)) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
    }
    return isFinite(lo) ? [lo, hi] : [0, 1];
  }
  function gridStep(records, field) {
    const xs = [...new Set(records.map((r) => r[field]).filter((v) => typeof v === 'number'))].sort((a, b) => a - b);
    let step = Infinity;
    for (let i = 1; i < xs.length; i++) step = Math.min(step, xs[i] - xs[i - 1]);
    return isFinite(step) && step > 0 ? step : 1;
  }
  function tooltipFields(records) {
    return Object.keys(records[0] || {}).slice(0, 8).map((k) => ({field: k, type: typeof records[0][k] === 'number' ? 'quantitative' : 'nominal'}));
  }

  const W = 300, H = 200;
  const PLOT_TEMPLATES = {
    histogram(p, d) {
      return {data: {values: d}, width: W, height: H,
        mark: {type: 'bar', opacity: 0.55, binSpacing: 0},
        encoding: {
          x: {field: 'bin_start', type: 'quantitative', bin: {binned: true}, title: p.x_label},
          x2: {field: 'bin_end'},
          y: {field: 'density', type: 'quantitative', stack: null, title: p.y_label},
          color: colorEncoding(colorField(d), d), tooltip: tooltipFields(d)}};
    },
    density(p, d) {
      return {data: {values: d}, width: W, height: H, mark: {type: 'line'},
        encoding: {x: {field: 'x', type: 'quantitative', title: p.x_label},
          y: {field: 'density', type: 'quantitative', title: p.y_label},
          color: colorEncoding(colorField(d), d)}};
    },
    ecdf(p, d) {
      return {data: {values: d}, width: W, height: H, mark: {type: 'line', interpolate: 'step-after'},
        encoding: {x: {field: 'x', type: 'quantitative', title: p.x_label},
          y: {field: 'cdf', type: 'quantitative', title: p.y_label, scale: {domain: [0, 1]}},
          color: colorEncoding(colorField(d), d)}};
    },
    qq(p, d) {
      const [lo, hi] = extent(d, ['confidential', 'synthetic']);
      return {width: W, height: H, layer: [
        {data: {values: [{a: lo}, {a: hi}]}, mark: {type: 'line', color: '#999', strokeDash: [4, 4]},
          encoding: {x: {field: 'a', type: 'quantitative'}, y: {field: 'a', type: 'quantitative'}}},
        {data: {values: d}, mark: {type: 'point', filled: true, size: 18, opacity: 0.7},
          encoding: {x: {field: 'confidential', type: 'quantitative', title: p.x_label || 'confidential quantile'},
            y: {field: 'synthetic', type: 'quantitative', title: p.y_label || 'synthetic quantile'},
            tooltip: tooltipFields(d)}}]};
    },
    bars(p, d) {
      const levels = new Set(d.map((r) => r.level)).size;
      return {data: {values: d}, height: H, width: {step: Math.max(6, Math.min(28, Math.floor(420 / Math.max(1, levels))))},
        mark: {type: 'bar'},
        encoding: {x: {field: 'level', type: 'nominal', sort: null, title: p.x_label, axis: {labelAngle: levels > 8 ? -45 : 0, labelLimit: 90}},
          xOffset: colorField(d) ? {field: colorField(d)} : undefined,
          y: {field: 'share', type: 'quantitative', title: p.y_label},
          color: colorEncoding(colorField(d), d), tooltip: tooltipFields(d)}};
    },
    heatmap(p, d) {
      const [lo, hi] = extent(d, ['value']);
      const cells = d.length;
      const n = Math.max(new Set(d.map((r) => r.column)).size, 1);
      const m = Math.max(new Set(d.map((r) => r.row)).size, 1);
      const step = Math.max(8, Math.min(36, Math.floor(420 / Math.max(n, m))));
      const color = lo < 0
        ? {field: 'value', type: 'quantitative', title: 'value', scale: {scheme: 'redblue', domainMid: 0, reverse: true}}
        : {field: 'value', type: 'quantitative', title: 'value', scale: {scheme: 'blues'}};
      const layers = [{mark: 'rect', encoding: {color: color, tooltip: tooltipFields(d)}}];
      const strong = 0.6 * Math.max(Math.abs(lo), Math.abs(hi));
      if (cells <= 144) layers.push({mark: {type: 'text', fontSize: 9}, encoding: {text: {field: 'value', type: 'quantitative', format: '.2f'},
        color: {condition: {test: `abs(datum.value) > ${strong}`, value: 'white'}, value: '#222'}}});
      return {data: {values: d}, width: {step: step}, height: {step: step},
        encoding: {x: {field: 'column', type: 'nominal', sort: null, title: p.x_label},
          y: {field: 'row', type: 'nominal', sort: null, title: p.y_label}},
        layer: layers};
    },
    contour(p, d) {
      // Summarised to a grid by the metric: drawn as filled grid tiles, one panel per dataset.
      const sx = gridStep(d, 'x') / 2, sy = gridStep(d, 'y') / 2;
      const field = colorField(d);
      const spec = {width: 200, height: 200, mark: {type: 'rect'},
        transform: [{calculate: `datum.x - ${sx}`, as: 'x0'}, {calculate: `datum.x + ${sx}`, as: 'x1'},
          {calculate: `datum.y - ${sy}`, as: 'y0'}, {calculate: `datum.y + ${sy}`, as: 'y1'}],
        encoding: {x: {field: 'x0', type: 'quantitative', title: p.x_label}, x2: {field: 'x1'},
          y: {field: 'y0', type: 'quantitative', title: p.y_label}, y2: {field: 'y1'},
          color: {field: 'density', type: 'quantitative', scale: {scheme: 'viridis'}}, tooltip: tooltipFields(d)}};
      if (!field) return Object.assign({data: {values: d}}, spec);
      return {data: {values: d}, facet: {column: {field: field, type: 'nominal', title: null}}, spec: spec,
        resolve: {scale: {color: 'shared'}}};
    },
    roc(p, d) {
      const field = colorField(d);
      return {width: W, height: H, layer: [
        {data: {values: [{fpr: 0, tpr: 0}, {fpr: 1, tpr: 1}]}, mark: {type: 'line', color: '#999', strokeDash: [4, 4]},
          encoding: {x: {field: 'fpr', type: 'quantitative'}, y: {field: 'tpr', type: 'quantitative'}}},
        {data: {values: d}, mark: {type: 'line', interpolate: 'step-after'},
          encoding: {x: {field: 'fpr', type: 'quantitative', title: p.x_label || 'false positive rate', scale: {domain: [0, 1]}},
            y: {field: 'tpr', type: 'quantitative', title: p.y_label || 'true positive rate', scale: {domain: [0, 1]}},
            color: colorEncoding(field, d), order: {field: 'fpr'}}}]};
    },
    roc_log(p, d) {
      // Log-log axes show the low false-positive rates a linear ROC squeezes into its corner;
      // the diagonal is the attacker who guesses.
      const field = colorField(d);
      const lo = Math.min(...d.map((r) => Math.min(r.fpr, r.tpr)).filter((v) => v > 0), 1e-3);
      const axis = (name, title) => ({field: name, type: 'quantitative', title: title,
        scale: {type: 'log', domain: [lo, 1]}});
      return {width: W, height: H, layer: [
        {data: {values: [{fpr: lo, tpr: lo}, {fpr: 1, tpr: 1}]}, mark: {type: 'line', color: '#999', strokeDash: [4, 4]},
          encoding: {x: axis('fpr'), y: axis('tpr')}},
        {data: {values: d}, mark: {type: 'line', interpolate: 'step-after', clip: true},
          encoding: {x: axis('fpr', p.x_label || 'false positive rate'),
            y: axis('tpr', p.y_label || 'true positive rate'),
            color: colorEncoding(field, d), order: {field: 'fpr'}, tooltip: d.length > 2000 ? undefined : tooltipFields(d)}}]};
    },
    scatter(p, d) {
      return {data: {values: d}, width: W, height: H,
        mark: {type: 'point', filled: true, size: d.length > 1000 ? 8 : 24, opacity: d.length > 1000 ? 0.35 : 0.7},
        encoding: {x: {field: 'x', type: 'quantitative', title: p.x_label},
          y: {field: 'y', type: 'quantitative', title: p.y_label},
          color: colorEncoding(colorField(d), d), tooltip: d.length > 2000 ? undefined : tooltipFields(d)}};
    },
    line(p, d) {
      return {data: {values: d}, width: W, height: H, mark: {type: 'line', point: d.length <= 60},
        encoding: {x: {field: 'x', type: 'quantitative', title: p.x_label},
          y: {field: 'y', type: 'quantitative', title: p.y_label},
          color: colorEncoding(colorField(d), d), tooltip: tooltipFields(d)}};
    },
    forest(p, d) {
      const field = colorField(d);
      return {data: {values: d}, width: W, height: {step: 18},
        encoding: {y: {field: 'estimand', type: 'nominal', sort: null, title: p.y_label || null},
          yOffset: field ? {field: field} : undefined, color: colorEncoding(field, d)},
        layer: [
          {mark: {type: 'rule', strokeWidth: 2}, encoding: {x: {field: 'lower', type: 'quantitative', title: p.x_label, scale: {zero: false}}, x2: {field: 'upper'}}},
          {mark: {type: 'point', filled: true, size: 40}, encoding: {x: {field: 'estimate', type: 'quantitative'}, tooltip: tooltipFields(d)}}]};
    },
  };

  function embed(container, spec, records) {
    spec.$schema = 'https://vega.github.io/schema/vega-lite/v6.json';
    spec.config = Object.assign({view: {stroke: '#ddd'}, axis: {labelFontSize: 10, titleFontSize: 11}, legend: {labelFontSize: 10, titleFontSize: 11}}, spec.config || {});
    const opts = {mode: 'vega-lite', renderer: records > 3000 ? 'canvas' : 'svg',
      actions: {export: true, source: false, compiled: false, editor: false}};
    const job = vegaEmbed(container, spec, opts).then((result) => { container.dataset.rendered = 'true'; return result; })
      .catch((error) => { console.error('synthaudit report: a plot failed to render:', container.dataset.title, error); throw error; });
    pending.push(job);
    return job;
  }

  function plotCard(plot) {
    const records = Array.isArray(plot.data) ? plot.data : [];
    const template = PLOT_TEMPLATES[plot.kind];
    const cardNode = el('div', {class: 'plot-card'},
      el('div', {class: 'plot-title', text: plot.title || plot.kind}),
      el('div', {class: 'plot-sub'}, `${plot.kind}` + (plot.scope && plot.scope !== 'all' ? ` · ${plot.scope}` : '') +
        (plot.thinned_from ? ` · ${records.length} of ${plot.thinned_from} records shown` : '')));
    if (!template) {
      cardNode.append(el('div', {class: 'note'}, `plot kind '${plot.kind}' has no template in this report; its data is in results.json`));
      return cardNode;
    }
    // Output checking (--safe-output) says what it took out of the plot.
    if (plot.output_check) cardNode.append(el('div', {class: 'note'}, `output checking: ${plot.output_check}`));
    if (records.length === 0) {
      if (!plot.output_check) cardNode.append(el('div', {class: 'note'}, 'no data for this plot'));
      return cardNode;
    }
    const container = el('div', {class: 'plot', 'data-kind': plot.kind, 'data-title': plot.title || ''});
    cardNode.append(container);
    embed(container, PLOT_TEMPLATES[plot.kind](plot, records), records.length);
    return cardNode;
  }

  // ---------- page sections ----------
  function header() {
    const cands = (doc.candidates || []).map((c) => `${c.name} (${c.replicates} replicate${c.replicates === 1 ? '' : 's'})`);
    const conf = (doc.inputs || []).find((i) => i.role === 'confidential');
    const hold = (doc.inputs || []).find((i) => i.role === 'holdout');
    const facts = [
      `synthaudit ${doc.tool ? doc.tool.version : ''}`, doc.created, `seed ${doc.seed}`,
      conf ? `confidential: ${conf.rows} rows × ${conf.columns} columns` : null,
      hold ? `holdout: ${hold.rows} rows` : 'no holdout',
      doc.spec && doc.spec.synthesis ? `${doc.spec.synthesis} synthesis` : null,
      typeof doc.wall_seconds === 'number' ? `${fmt(doc.wall_seconds)} s` : null,
    ].filter(Boolean);
    const check = doc.output_check;
    const checked = check && typeof check === 'object' ?
      el('div', {class: 'facts'}, `Output-checked results (--safe-output): nothing from fewer than ${check.threshold} records; ` +
        `${Array.isArray(check.withheld) ? check.withheld.length : 0} kind(s) of item withheld or rounded (listed in output_check.txt).`) : null;
    return el('header', {class: 'top'},
      el('h1', null, 'Synthetic data audit'),
      el('div', {class: 'facts'}, facts.join(' · ')),
      checked,
      el('div', {class: 'facts'}, 'Candidates: ' + (cands.length ? cands.join(', ') : 'none')));
  }

  function toc(families) {
    return el('nav', {class: 'toc'},
      el('a', {href: '#executive'}, 'Summary'),
      doc.verdict ? el('a', {href: '#policy'}, 'Release policy') : null,
      el('a', {href: '#scorecard'}, 'Scorecard'), el('a', {href: '#comparison'}, 'Candidate comparison'),
      (doc.relations || []).length ? el('a', {href: '#structure'}, 'Structure and households') : null,
      families.map((f) => el('a', {href: '#family-' + slug(f)}, familyLabel(f))),
      (doc.warnings || []).length ? el('a', {href: '#warnings'}, `Warnings (${doc.warnings.length})`) : null);
  }

  // ---------- numbers and colours fixed by each statistic's definition ----------
  // A headline's unit comes from its declaration: a share (0-1) is shown as a percentage.
  function fmtUnit(v, unit) {
    if (typeof v !== 'number' || !isFinite(v)) return fmt(v);
    if (unit === 'share') return plain(v * 100) + ' %';
    if (unit === 'percent') return plain(v) + ' %';
    return plain(v);
  }
  // Plain notation: at most four significant digits, whole numbers in full, no exponent above a
  // millionth (the terminal summary's rule, src/report/summary.cpp).
  function plain(v) {
    if (typeof v !== 'number' || !isFinite(v)) return fmt(v);
    if (v === 0) return '0';
    const a = Math.abs(v);
    if (Number.isInteger(v) && a < 1e15) return v.toLocaleString('en-US');
    if (a < 1e-6) return v.toExponential(2);
    const e = Math.floor(Math.log10(a));
    if (e >= 3) return (Math.round(v / 10 ** (e - 3)) * 10 ** (e - 3)).toLocaleString('en-US');
    return String(Number(v.toFixed(3 - e)));
  }
  function idealShort(h) {
    const ideal = h.ideal || {};
    if (ideal.kind === 'higher' || (!ideal.kind && h.better === 'higher')) return 'higher';
    if (ideal.kind !== 'target') return 'lower';
    return `near ${plain(ideal.target)}` + (ideal.scale === 'ratio' ? ' (ratio)' : '');
  }
  // How far a value is from the headline's ideal, 0 at the ideal; null where the statistic's
  // definition gives no bound to measure against (a "higher is better" number without a maximum).
  function distanceToIdeal(h, v) {
    const ideal = h.ideal || {};
    if (ideal.kind === 'target') {
      if (ideal.scale === 'ratio') return v > 0 && ideal.target > 0 ? Math.abs(Math.log(v / ideal.target)) : Infinity;
      return Math.abs(v - ideal.target);
    }
    if (ideal.kind === 'higher') return h.unit === 'share' ? 1 - v : null;
    return h.unit === 'share' || v >= 0 ? v : null;
  }
  const GREEN = [201, 236, 210], NEUTRAL = [244, 244, 244], AMBER = [252, 228, 179], RED = [247, 199, 193];
  function blend(a, b, t) { return a.map((x, k) => Math.round(x + (b[k] - x) * Math.min(1, Math.max(0, t)))); }
  function rgb(c) { return `rgb(${c[0]},${c[1]},${c[2]})`; }
  // The verdict's check of this headline for this candidate, when the policy has one.
  function checkFor(h, candidate) {
    const v = doc.verdict;
    if (!v || !v.policy) return null;
    const ids = (v.policy.criteria || []).filter((c) => c.metric === h.metric && c.statistic === h.statistic &&
      (c.scope || 'all') === (h.scope || 'all')).map((c) => c.id);
    const entry = (v.candidates || []).find((c) => c.name === candidate);
    return entry ? (entry.checks || []).find((k) => ids.includes(k.criterion) && k.status !== 'not_evaluated') || null : null;
  }
  // Colour of a headline cell, absolute (never relative to the candidates' spread):
  //  - the verdict's check of this headline when the policy has one (pass green, review amber,
  //    fail red);
  //  - else, with a baseline: at or better than the baseline green, worse towards red, red at
  //    twice the baseline's distance to the ideal ("materially worse");
  //  - else a share by its value (0 and 1 are the ends of its scale), a target statistic by its
  //    distance to the target (a linear target on a 0-1 statistic: the farthest possible value is
  //    red; a ratio target: a factor of 10 is red);
  //  - else no colour: the statistic's definition gives no scale.
  function cellColor(h, i) {
    const v = h.values[i];
    if (typeof v !== 'number' || !isFinite(v)) return null;
    const check = checkFor(h, card.candidates[i]);
    if (check) return rgb(check.status === 'pass' ? GREEN : check.status === 'review' ? AMBER : RED);
    const d = distanceToIdeal(h, v);
    const b = h.baseline && typeof h.baseline.value === 'number' ? h.baseline.value : null;
    if (b !== null && !(distanceToIdeal(h, b) === 0 && (h.ideal || {}).kind === 'target')) {
      const db = distanceToIdeal(h, b);
      if (d !== null && db !== null && !(db === 0 && (h.ideal || {}).kind === 'target')) {
        if (d <= db) return rgb(GREEN);
        if (db === 0) return rgb(RED);
        const t = (d - db) / db;  // 0 at the baseline, 1 at twice its distance
        return rgb(t < 0.5 ? blend(NEUTRAL, AMBER, t * 2) : blend(AMBER, RED, (t - 0.5) * 2));
      }
      // Higher is better without a bound: the relative shortfall from the baseline.
      if (v >= b) return rgb(GREEN);
      const t = b !== 0 ? (b - v) / Math.abs(b) : 1;
      return rgb(t < 0.5 ? blend(NEUTRAL, AMBER, t * 2) : blend(AMBER, RED, (t - 0.5) * 2));
    }
    let t = null;
    const ideal = h.ideal || {};
    if (h.unit === 'share' && d !== null) t = d;
    else if (ideal.kind === 'target' && ideal.scale === 'ratio') t = d / Math.log(10);
    else if (ideal.kind === 'target' && ideal.target > 0 && ideal.target < 1) t = d / Math.max(ideal.target, 1 - ideal.target);
    if (t === null || !isFinite(t) && t !== Infinity) return null;
    return rgb(t < 0.5 ? blend(GREEN, NEUTRAL, t * 2) : blend(NEUTRAL, RED, (t - 0.5) * 2));
  }
  function colorLegend() {
    return el('p', {class: 'note'}, 'Colours are fixed by each statistic\'s definition, never by the candidates\' spread: ',
      el('span', {class: 'swatch', style: `background:${rgb(GREEN)}`}), ' passes the policy, or at least as good as the baseline; ',
      el('span', {class: 'swatch', style: `background:${rgb(AMBER)}`}), ' for review, or worse than the baseline; ',
      el('span', {class: 'swatch', style: `background:${rgb(RED)}`}), ' fails, or twice as far from the ideal as the baseline. ',
      'Without a baseline a share is coloured by its value and a target statistic by its distance to the target; other cells stay white. ',
      '* The policy compared this candidate on other numbers than the cell shows (hover the cell for them). Rows marked "at the holdout\'s N rows" show what the verdict compares, the full-size value in grey brackets.');
  }

  // ---------- the executive page ----------
  // The engine's warning "candidate 'NAME', column 'COL': N level(s) not in the WHICH data: A, B"
  // becomes one line per candidate and direction.
  function levelFindings() {
    const out = new Map();
    const pattern = /^candidate '(.*)', column '(.*)': (\d+) level\(s\) not in the (.*) data: (.*)$/;
    for (const w of doc.warnings || []) {
      const m = typeof w === 'string' ? w.match(pattern) : null;
      if (!m) continue;
      const key = m[1] + '\u0000' + m[4];
      const f = out.get(key) || {candidate: m[1], which: m[4], levels: 0, columns: [], first: ''};
      f.levels += Number(m[3]);
      f.columns.push(m[2]);
      if (!f.first) {
        const levels = m[5].split(',').map((x) => x.trim());
        f.first = `${m[2]}: ${levels.slice(0, 3).join(', ')}${levels.length > 3 ? ', …' : ''}`;
      }
      out.set(key, f);
    }
    return [...out.values()].map((f) => ({candidate: f.candidate,
      text: `${f.levels} ${f.which === 'confidential' ? 'synthetic level(s)' : 'confidential level(s)'} not in the ${f.which} data` +
        (f.columns.length > 1 ? `, in ${f.columns.length} columns` : '') + ` (${f.first})`}));
  }

  function headlineLabel(h) {
    const base = h.statistic + (h.scope && h.scope !== 'all' ? ` [${h.scope}]` : '');
    return base;
  }

  // The executive page shows each candidate's first reasons (full sentences with their numbers);
  // the rest open with a click and are all in the release-policy section.
  const REASONS_SHOWN = 2;
  // The subgroup farthest from its own baseline (results.json subgroups.judged): where to look
  // first, not a test; null without subgroups.
  function worstSubgroup(name) {
    const judged = (doc.subgroups || {}).judged;
    const c = judged && (judged.candidates || []).find((x) => x.name === name);
    if (!c || !c.worst) return null;
    // Short, so that the executive page stays one page in print; the sentence is its title.
    const w = c.worst;
    return {text: `Worst subgroup ${w.subgroup}: ${w.statistic} ${fmt(w.standardised_difference)} sd from its ` +
      `${w.baseline_name} baseline (${c.beyond_review_sd} of ${c.comparisons} beyond ${fmt(judged.review_sd)}; where to look, not a test)`,
      title: w.reason};
  }
  function executiveSection() {
    const sec = el('section', {id: 'executive'});
    const verdict = doc.verdict;
    const findings = levelFindings();
    if (verdict) {
      const policy = verdict.policy && verdict.policy.source ? ` (${verdict.policy.source === 'default' ? 'default policy' : 'policy: ' + verdict.policy.source})` : '';
      sec.append(el('div', {class: 'recommendation ' + (verdict.recommended ? 'has-pick' : 'no-pick')},
        verdict.recommended ? el('span', null, 'Recommended: ', el('strong', null, verdict.recommended)) : el('strong', null, 'No candidate is recommended'),
        el('span', {class: 'muted'}, policy)));
      const cards = el('div', {class: 'verdicts'});
      for (const c of verdict.candidates || []) {
        const mine = findings.filter((f) => f.candidate === c.name);
        const subgroup = worstSubgroup(c.name);
        cards.append(el('div', {class: 'verdict status-' + c.status, 'data-candidate': c.name},
          el('div', {class: 'verdict-head'}, el('span', {class: 'candidate-name'}, c.name), el('span', {class: 'status'}, c.status)),
          (c.reasons || []).length || mine.length || subgroup ? el('ul', null, (c.reasons || []).slice(0, REASONS_SHOWN).map((r) => el('li', null, r)),
            mine.map((f) => el('li', {class: 'finding'}, f.text)),
            subgroup ? el('li', {class: 'finding subgroup', title: subgroup.title}, subgroup.text) : null) : null,
          (c.reasons || []).length > REASONS_SHOWN ? el('details', {class: 'more-reasons'},
            el('summary', null, `${c.reasons.length - REASONS_SHOWN} more reason(s)`),
            el('ul', null, c.reasons.slice(REASONS_SHOWN).map((r) => el('li', null, r)))) : null));
      }
      sec.append(cards);
    } else {
      sec.append(el('div', {class: 'recommendation no-pick'}, 'These results carry no verdict (written before verdicts existed).'));
      if (findings.length) sec.append(el('ul', null, findings.map((f) => el('li', {class: 'finding'}, `${f.candidate}: ${f.text}`))));
    }

    if (!card.headlines.length) {
      sec.append(el('p', {class: 'note'}, 'No metric in these results declares a headline.'));
      return sec;
    }
    const anyBaseline = card.headlines.some((h) => h.baseline);
    const table = el('table', {class: 'headlines'});
    table.append(el('thead', null, el('tr', null, el('th', null, 'Headline'), el('th', null, 'Better'),
      card.candidates.map((c) => el('th', {class: 'candidate'}, c)), anyBaseline ? el('th', null, 'Baseline') : null)));
    const body = el('tbody');
    for (const axis of ['risk', 'utility']) {
      const rows = card.headlines.filter((h) => (h.axis === 'risk') === (axis === 'risk'));
      if (!rows.length) continue;
      body.append(el('tr', {class: 'axis-row'}, el('th', {colspan: String(2 + card.candidates.length + (anyBaseline ? 1 : 0))},
        axis === 'risk' ? 'Disclosure risk' : 'Utility')));
      for (const h of rows) {
        const b = h.baseline;
        // A smaller holdout is compared with the candidates at its size: the cells show those
        // values, coloured as the verdict judged them beside the baseline of that size, and the
        // full-size value after them in grey; one row, so the executive page keeps to one page.
        const at = h.at_baseline_size;
        if (at) {
          const compared = Object.assign({}, h, {values: at.values});
          const rows = fmt((at.rows || []).find((r) => typeof r === 'number'));
          body.append(el('tr', {class: 'compared-row'},
            el('td', {title: (h.reading || '') + ` (compared at the holdout's ${rows} rows: this statistic grows with the number of released rows)`},
              el('a', {href: '#metric-' + slug(h.metric)}, headlineLabel(h)), el('div', {class: 'better'}, `${h.metric} · at the holdout's ${rows} rows`)),
            el('td', {class: 'ideal', title: betterText(h)}, idealShort(h)),
            at.values.map((v, i) => {
              const check = checkFor(h, card.candidates[i]);
              const color = cellColor(compared, i);
              return el('td', {class: 'num', style: color ? `background:${color}` : null,
                title: check ? `policy check (${check.status}): ${fmtUnit(check.value, h.unit)} against baseline ${fmtUnit(check.baseline, h.unit)}` +
                  (typeof check.limit === 'number' ? `, limit ${fmtUnit(check.limit, h.unit)}` : '') + (check.reason ? ` — ${check.reason}` : '') : null},
              typeof v === 'number' ? fmtUnit(v, h.unit) : '—',
              el('span', {class: 'full-size', title: 'at the full synthetic size'}, ` (${fmtUnit(h.values[i], h.unit)})`));
            }),
            anyBaseline ? el('td', {class: 'baseline', title: b && b.note ? b.note : null},
              b ? `${b.name} ${fmtUnit(b.value, h.unit)}` : '—') : null));
          continue;
        }
        body.append(el('tr', null,
          el('td', {title: h.reading || ''}, el('a', {href: '#metric-' + slug(h.metric)}, headlineLabel(h)), el('div', {class: 'better'}, h.metric)),
          el('td', {class: 'ideal', title: betterText(h)}, idealShort(h)),
          h.values.map((v, i) => {
            const check = checkFor(h, card.candidates[i]);
            // The policy may compare at the baseline's size (subsamples of the holdout's size):
            // then the colour follows numbers other than the cell's, marked and given on hover.
            const other = check && typeof check.value === 'number' && typeof v === 'number' &&
              Math.abs(check.value - v) > 1e-9 * Math.max(1, Math.abs(v));
            const notes = [];
            if ((h.replicates[i] || []).length > 1) notes.push('replicates: ' + h.replicates[i].map((x) => fmtUnit(x, h.unit)).join(', '));
            if (check) notes.push(`policy check (${check.status}): ${fmtUnit(check.value, h.unit)} against baseline ${fmtUnit(check.baseline, h.unit)}` +
              (typeof check.limit === 'number' ? `, limit ${fmtUnit(check.limit, h.unit)}` : '') + (check.reason ? ` — ${check.reason}` : ''));
            return el('td', {class: 'num', style: cellColor(h, i) ? `background:${cellColor(h, i)}` : null, title: notes.length ? notes.join('\n') : null},
              fmtUnit(v, h.unit), other ? el('sup', {class: 'check-mark'}, '*') : null);
          }),
          anyBaseline ? el('td', {class: 'baseline', title: b && b.note ? b.note : null},
            b ? `${b.name} ${fmtUnit(b.value, h.unit)}` : '—') : null));
      }
    }
    table.append(body);
    sec.append(el('h2', null, 'Headlines'), table, colorLegend());
    if ((doc.baselines || []).length)
      sec.append(el('p', {class: 'note'}, 'Baselines: ', doc.baselines.flatMap((b, i) => [i ? ' · ' : '', el('strong', null, b.name), ': ', b.description || ''])));
    else if (anyBaseline === false)
      sec.append(el('p', {class: 'note'}, 'No baselines in these results (give a holdout file to compare with a fresh real sample).'));
    return sec;
  }

  // A collapsed detail section: the summary line is its heading.
  function detailSection(id, title, children) {
    return el('details', {class: 'section', id: id}, el('summary', null, el('h2', null, title)), children);
  }

  function scorecardSection() {
    const sec = detailSection('scorecard', 'Scorecard: every headline with its rank and how to read it');
    if (!card.headlines.length) {
      sec.append(el('p', {class: 'note'}, 'No metric in these results declares a headline.'));
      return sec;
    }
    sec.append(el('p', {class: 'note'},
      'Each cell is the candidate\'s mean over its replicates (or the value combined over them); #k is its rank by distance to the ideal (#1 closest). ',
      'Colours as on the summary page.'));
    const table = el('table', {class: 'scorecard'});
    table.append(el('thead', null, el('tr', null, el('th', null, 'Axis'), el('th', null, 'Metric · headline'),
      card.candidates.map((c) => el('th', {class: 'candidate'}, c)), el('th', null, 'What it says'))));
    const body = el('tbody');
    for (const h of card.headlines) {
      const name = h.statistic + (h.scope && h.scope !== 'all' ? ` [${h.scope}]` : '');
      body.append(el('tr', null,
        el('td', null, h.axis === 'risk' ? 'risk' : 'utility'),
        el('td', null, el('a', {href: '#metric-' + slug(h.metric)}, h.metric), ' · ', name,
          el('div', {class: 'better'}, betterText(h))),
        h.values.map((v, i) => el('td', {class: 'num', style: cellColor(h, i) ? `background:${cellColor(h, i)}` : null,
          title: (h.replicates[i] || []).length > 1 ? 'replicates: ' + h.replicates[i].map((x) => fmtUnit(x, h.unit)).join(', ') : null},
          fmtUnit(v, h.unit), h.ranks[i] !== null ? el('span', {class: 'rank'}, '#' + fmt(h.ranks[i])) : null)),
        el('td', {class: 'reading'}, h.reading || '')));
    }
    table.append(body);
    sec.append(table);
    return sec;
  }

  // The map's default risk axis is a record-level risk headline: among the risk headlines with a
  // value, first one of the distance-disclosure family that is a share (e.g. records copied
  // exactly), then any distance-disclosure one or any share, then the first.
  function defaultRiskHeadline(risk) {
    const score = (h) => (h.family === 'distance-disclosure' ? 2 : 0) + (h.unit === 'share' ? 1 : 0) +
      (h.values.some((v) => typeof v === 'number') ? 4 : 0);
    let best = 0;
    risk.forEach((h, i) => { if (score(h) > score(risk[best])) best = i; });
    return best;
  }

  function comparisonSection() {
    const sec = detailSection('comparison', 'Candidate comparison: ranks and the risk–utility map');
    if (card.candidates.length === 0) { sec.append(el('p', {class: 'note'}, 'No candidates.')); return sec; }
    sec.append(el('h3', null, 'Ranking'),
      el('p', {class: 'note'}, 'Mean rank over the utility headlines and, separately, over the risk headlines (1 = closest to the ideal on every one); utility and risk are never averaged into one number.'));
    const ranked = (r, key, legacy) => (typeof r[key] === 'number' ? r[key] : (typeof r[legacy] === 'number' ? r[legacy] : null));
    const rows = card.ranking.map((r) => row([r.candidate, r.utility_rank, r.risk_rank, ranked(r, 'ranked_utility', 'ranked'), ranked(r, 'ranked_risk', 'ranked')], r.candidate));
    sec.append(pagedTable(['Candidate', 'Utility rank', 'Risk rank', 'Utility headlines', 'Risk headlines'], rows, {className: 'ranking'}));

    sec.append(el('h3', null, 'Risk–utility map'));
    const utility = card.headlines.filter((h) => h.axis !== 'risk');
    const risk = card.headlines.filter((h) => h.axis === 'risk');
    if (!utility.length && !risk.length) {
      sec.append(el('p', {class: 'note'}, 'No headline to place the candidates on.'));
      return sec;
    }
    const label = (h) => `${h.metric} · ${h.statistic}` + (h.scope && h.scope !== 'all' ? ` [${h.scope}]` : '');
    const select = (list, name) => el('select', {name: name}, list.map((h, i) => el('option', {value: String(i)}, label(h))));
    const xs = utility.length ? select(utility, 'utility') : null;
    const ys = risk.length ? select(risk, 'risk') : null;
    if (ys) ys.value = String(defaultRiskHeadline(risk));
    const controls = el('div', {class: 'controls'},
      xs ? el('label', null, 'utility (x): ', xs) : null, ys ? el('label', null, 'risk (y): ', ys) : null);
    const note = el('p', {class: 'note'});
    const holder = el('div', {class: 'plot-card'});
    sec.append(controls, note, holder);
    function draw() {
      const hx = xs ? utility[Number(xs.value)] : null;
      const hy = ys ? risk[Number(ys.value)] : null;
      const points = [], reps = [];
      card.candidates.forEach((c, i) => {
        const x = hx ? hx.values[i] : null, y = hy ? hy.values[i] : null;
        if ((hx && typeof x !== 'number') || (hy && typeof y !== 'number')) return;
        points.push({candidate: c, x: x, y: y});
        const n = Math.max(hx ? hx.replicates[i].length : 0, hy ? hy.replicates[i].length : 0);
        if (n > 1) for (let r = 0; r < n; r++) {
          const rx = hx ? hx.replicates[i][r] : null, ry = hy ? hy.replicates[i][r] : null;
          if ((hx && typeof rx !== 'number') || (hy && typeof ry !== 'number')) continue;
          reps.push({candidate: c, x: rx, y: ry, replicate: r + 1});
        }
      });
      note.textContent = (hx && hy)
        ? `Each large point is a candidate (its mean); small points are its replicates. Best corner: ${hx.statistic} ${betterText(hx)}; ${hy.statistic} ${betterText(hy)}.`
        : `Only ${hx ? 'utility' : 'risk'} headlines are in these results, so the map has one axis; run a ${hx ? 'disclosure-risk' : 'utility'} metric for the second.`;
      const xEnc = hx ? {field: 'x', type: 'quantitative', scale: {zero: false}, title: `${label(hx)} (${betterText(hx)})`} : null;
      const yEnc = hy ? {field: 'y', type: 'quantitative', scale: {zero: false}, title: `${label(hy)} (${betterText(hy)})`}
        : {field: 'candidate', type: 'nominal', title: null};
      const x = xEnc || {field: 'y', type: 'quantitative', scale: {zero: false}, title: `${label(hy)} (${betterText(hy)})`};
      const y = hy && hx ? yEnc : {field: 'candidate', type: 'nominal', title: null};
      const color = {field: 'candidate', type: 'nominal', title: 'candidate'};
      const layer = [];
      if (reps.length) layer.push({data: {values: reps}, mark: {type: 'point', size: 45, opacity: 0.6},
        encoding: {x: x, y: y, color: color, tooltip: [{field: 'candidate'}, {field: 'replicate'}, {field: x.field, type: 'quantitative', title: x.title}]}});
      layer.push({data: {values: points}, mark: {type: 'point', filled: true, size: 180},
        encoding: {x: x, y: y, color: color, tooltip: [{field: 'candidate'}, {field: x.field, type: 'quantitative', title: x.title}].concat(hx && hy ? [{field: 'y', type: 'quantitative', title: y.title}] : [])}});
      layer.push({data: {values: points}, mark: {type: 'text', dx: 10, dy: -10, align: 'left', fontSize: 11},
        encoding: {x: x, y: y, text: {field: 'candidate'}}});
      const container = el('div', {class: 'plot', 'data-kind': 'risk-utility-map', 'data-title': 'risk–utility map'});
      holder.replaceChildren(container);
      return embed(container, {width: 460, height: hx && hy ? 320 : {step: 34}, layer: layer}, points.length + reps.length);
    }
    if (xs) xs.addEventListener('change', draw);
    if (ys) ys.addEventListener('change', draw);
    draw();
    return sec;
  }

  // A value computed on both data sets ends its scope in ";data=confidential" or
  // ";data=synthetic" (measures such as k-anonymity, which mean something for the real records
  // too): such pairs share one row, the confidential value in a column of its own beside each
  // candidate's synthetic value, on the same scale.
  const CONF_SUFFIX = ';data=confidential', SYN_SUFFIX = ';data=synthetic';
  function sideBySide(scope) {
    if (scope.endsWith(CONF_SUFFIX)) return {base: scope.slice(0, -CONF_SUFFIX.length), confidential: true};
    if (scope.endsWith(SYN_SUFFIX)) return {base: scope.slice(0, -SYN_SUFFIX.length), confidential: false};
    return null;
  }

  // Values of one metric: one row per (statistic, scope), one column per candidate.
  function valuesTable(metric) {
    const keys = [], seen = new Map(), confidential = new Map();
    const perCandidate = metric.candidates.map((c) => {
      const src = c.combined || c.mean || (c.replicates && c.replicates.length === 1 ? c.replicates[0] : null);
      const map = new Map(), reps = new Map();
      for (const v of (src && src.values) || []) {
        const pair = sideBySide(v.scope);
        const scope = pair ? pair.base : v.scope;
        const k = v.statistic + '\u0000' + scope;
        if (pair && pair.confidential) { if (!confidential.has(k)) confidential.set(k, v.value); continue; }
        if (!seen.has(k)) { seen.set(k, true); keys.push([v.statistic, scope]); }
        map.set(k, v.value);
      }
      for (const r of c.replicates || []) for (const v of r.values || []) {
        const pair = sideBySide(v.scope);
        if (pair && pair.confidential) continue;
        const k = v.statistic + '\u0000' + (pair ? pair.base : v.scope);
        if (!reps.has(k)) reps.set(k, []);
        reps.get(k).push(v.value);
      }
      return {map: map, reps: reps};
    });
    for (const k of confidential.keys()) if (!seen.has(k)) { seen.set(k, true); keys.push(k.split('\u0000')); }
    const withConfidential = confidential.size > 0;
    const rows = keys.map(([s, sc]) => {
      const k = s + '\u0000' + sc;
      const conf = withConfidential ? [el('td', {class: 'num'}, fmt(confidential.has(k) ? confidential.get(k) : null))] : [];
      return {text: s + ' ' + sc, node: () => el('tr', null, el('td', null, s), el('td', null, sc), conf,
        perCandidate.map((p) => {
          const r = p.reps.get(k) || [];
          return el('td', {class: 'num', title: r.length > 1 ? 'replicates: ' + r.map(fmt).join(', ') : null}, fmt(p.map.has(k) ? p.map.get(k) : null));
        }))};
    });
    if (!rows.length) return el('p', {class: 'note'}, 'No values.');
    const head = ['Statistic', 'Scope'].concat(withConfidential ? ['confidential data'] : [], metric.candidates.map(entryName));
    const hover = perCandidate.some((p) => [...p.reps.values()].some((r) => r.length > 1));
    const source = metric.granularity === 'per-candidate' ? 'combined over replicates'
      : 'mean over replicates' + (hover ? ' (hover for each replicate)' : '; each replicate\'s values are in results.tsv');
    return el('div', null, el('div', {class: 'note'}, `Values: ${source}.`), pagedTable(head, rows, {className: 'values'}));
  }

  // Values of one metric within the subgroups of `by:` (results.json metrics[].subgroups): one
  // row per (subgroup, statistic, scope), one column per candidate; a suppressed subgroup or
  // candidate says so instead of a number. Collapsed: they are reported, not headlined.
  function subgroupsBlock(metric) {
    const groups = metric.subgroups || [];
    if (!groups.length) return null;
    const names = metric.candidates.filter((c) => !c.baseline).map((c) => c.name);
    // The subgroups' own baselines (drawn from each subgroup's rows) follow the candidates.
    const baselines = [];
    for (const g of groups)
      for (const c of g.candidates || [])
        if (c.baseline && !baselines.includes(c.name)) baselines.push(c.name);
    const columns = names.concat(baselines);
    const rows = [];
    let suppressed = 0;
    for (const g of groups) {
      if (g.suppressed) {
        suppressed += 1;
        rows.push(row([g.label, 'suppressed', g.suppressed].concat(columns.map(() => '')), g.label));
        continue;
      }
      const keys = [], seen = new Set(), byCandidate = new Map();
      for (const c of g.candidates || []) {
        const map = new Map();
        if (c.suppressed) { byCandidate.set(c.name, c.suppressed); continue; }
        const src = c.combined || c.mean || (c.replicates && c.replicates.length === 1 ? c.replicates[0] : null);
        for (const v of (src && src.values) || []) {
          const k = v.statistic + '\u0000' + v.scope;
          if (!seen.has(k)) { seen.add(k); keys.push([v.statistic, v.scope]); }
          map.set(k, v.value);
        }
        byCandidate.set(c.name, map);
      }
      if (!keys.length) keys.push(['suppressed', 'all']);
      for (const [s, sc] of keys) {
        const k = s + '\u0000' + sc;
        rows.push({text: g.label + ' ' + s + ' ' + sc, node: () => el('tr', null, el('td', null, g.label), el('td', null, s), el('td', null, sc),
          columns.map((n) => {
            const m = byCandidate.get(n);
            if (typeof m === 'string') return el('td', {class: 'muted', title: m}, 'suppressed');
            return el('td', {class: 'num'}, fmt(m && m.has(k) ? m.get(k) : null));
          }))});
      }
    }
    const info = doc.subgroups || {};
    const summary = `Subgroups: ${groups.length}` + (info.by ? ` (by ${info.by.join(', ')})` : '') +
      (suppressed ? `, ${suppressed} suppressed` : '');
    return el('details', {class: 'definition subgroups'}, el('summary', null, summary),
      info.note ? el('div', {class: 'note'}, info.note) : null,
      pagedTable(['Subgroup', 'Statistic', 'Scope'].concat(names, baselines.map((b) => b + ' (baseline)')), rows, {className: 'values'}));
  }

  // Any JSON value as people read it, never as JSON: scalars as text, lists of scalars joined,
  // objects as a two-column table, lists of records as a table.
  function valueText(v) {
    if (v === null || v === undefined) return '—';
    if (typeof v === 'number') return fmt(v);
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (Array.isArray(v)) return v.every((x) => x === null || typeof x !== 'object') ? v.map(valueText).join(', ') : `${v.length} entries`;
    if (typeof v === 'object') return Object.entries(v).map(([k, x]) => `${k}: ${valueText(x)}`).join('; ');
    return String(v);
  }
  function isRecords(v) { return Array.isArray(v) && v.length && v.every((r) => r && typeof r === 'object' && !Array.isArray(r)); }
  function renderValue(v, depth) {
    depth = depth || 0;
    if (v === null || typeof v !== 'object' || depth > 3) return document.createTextNode(depth > 3 ? valueText(v) : valueText(v));
    if (Array.isArray(v) && !isRecords(v)) {
      if (v.every((x) => x === null || typeof x !== 'object')) return document.createTextNode(valueText(v));
      return el('ul', {class: 'value-list'}, v.map((x) => el('li', null, renderValue(x, depth + 1))));
    }
    if (isRecords(v)) {
      const cols = [...new Set(v.flatMap((r) => Object.keys(r)))].slice(0, 12);
      return pagedTable(cols, v.map((r) => ({text: cols.map((c) => valueText(r[c])).join(' '),
        node: () => el('tr', null, cols.map((c) => (r[c] !== null && typeof r[c] === 'object'
          ? el('td', null, renderValue(r[c], depth + 1))
          : el('td', {class: typeof r[c] === 'number' ? 'num' : null}, valueText(r[c])))))})));
    }
    return el('table', {class: 'kv'}, el('tbody', null, Object.entries(v).map(([k, x]) =>
      el('tr', null, el('th', null, k), el('td', {class: typeof x === 'number' ? 'num' : null}, renderValue(x, depth + 1))))));
  }

  // Details other than plots: tables of records, key-value tables and lists (never raw JSON).
  // A metric's tables (details.tables, the convention in src/metrics/metric.hpp): each a titled
  // table; a cell is text, a number, true/false or an interval [lower, upper].
  function tableCell(v) {
    if (typeof v === 'boolean') return v ? 'yes' : 'no';
    if (Array.isArray(v) && v.length === 2) return `[${fmt(v[0])}, ${fmt(v[1])}]`;
    return typeof v === 'number' || v === null ? v : String(v);
  }
  function metricTables(tables) {
    return (tables || []).map((t) => el('div', {class: 'metric-table'},
      el('div', {class: 'note'}, el('strong', null, t.title || '')),
      pagedTable(t.columns || [], (t.rows || []).map((r) => row(r.map(tableCell), r.map(String).join(' '))))));
  }

  function detailsBlocks(details) {
    const out = [];
    for (const [key, value] of Object.entries(details || {})) {
      if (key === 'plots' || key === 'tables') continue;
      if (isRecords(value)) {
        out.push(el('details', {class: 'definition', open: value.length <= PAGE_ROWS}, el('summary', null, `${key} (${value.length} rows)`), renderValue(value)));
      } else {
        out.push(el('details', {class: 'definition'}, el('summary', null, key), renderValue(value)));
      }
    }
    return out;
  }

  function resultFor(metric, ci, ri) {
    const c = metric.candidates[ci];
    if (!c) return null;
    if (c.combined) return {label: 'combined over replicates', result: c.combined};
    const r = (c.replicates || [])[ri];
    return r ? {label: `replicate ${r.replicate}`, result: r} : null;
  }

  // The published works a metric follows, as the registry declares them (results.json carries
  // them in metrics[].references).
  function referencesList(metric) {
    const refs = metric.references || [];
    if (!refs.length) return null;
    return el('div', {class: 'references'}, el('div', {class: 'note'}, 'References:'),
      el('ul', null, refs.map((r) => el('li', null, r.text || `${r.authors} (${r.year}). ${r.title}.`,
        r.used_for ? ` — ${r.used_for}` : ''))));
  }

  // Every statistic the metric can report, with its meaning and which value is good.
  function statisticsTable(metric) {
    const stats = metric.statistics || [];
    if (!stats.length) return null;
    return pagedTable(['Statistic', 'Ideal', 'Meaning'],
      stats.map((s) => row([s.name + (s.headline ? ' (headline)' : ''), s.ideal_text || '', s.meaning || ''], s.name)));
  }

  function metricSection(metric) {
    const sec = el('div', {class: 'metric', id: 'metric-' + slug(metric.name)});
    sec.append(el('h3', null, metric.name, el('span', {class: 'family-tag'}, metric.family),
      ' ', el('a', {href: '#def-' + slug(metric.name), class: 'tag', onclick: () => { document.getElementById('def-' + slug(metric.name)).open = true; }}, 'definition')));
    sec.append(el('p', null, metric.summary || ''));
    const def = el('details', {class: 'definition', id: 'def-' + slug(metric.name)}, el('summary', null, 'Definition: formula, how to read it, reference'), markdown(metric.doc));
    const params = Object.entries(metric.params || {});
    if (params.length) def.append(el('div', {class: 'note'}, 'Parameters used: '), pagedTable(['Parameter', 'Value'], params.map(([k, v]) => ({text: k + ' ' + valueText(v), node: () => el('tr', null, el('td', null, k), el('td', null, renderValue(v)))}))));
    const stats = statisticsTable(metric);
    if (stats) def.append(el('div', {class: 'note'}, 'Statistics: '), stats);
    sec.append(def);
    const refs = referencesList(metric);
    // The numbers first; the warnings and references after them, collapsed.
    const afterNumbers = () => {
      const out = [];
      const warnings = [];
      let count = 0;
      for (const c of metric.candidates) {
        const all = (c.replicates || []).flatMap((r) => (r.warnings || []).map((w) => `replicate ${r.replicate}: ${w}`))
          .concat(((c.combined || {}).warnings || []));
        count += all.length;
        for (const w of all.slice(0, 10)) warnings.push(el('div', {class: 'warning'}, `${c.name} — ${w}`));
        if (all.length > 10) warnings.push(el('div', {class: 'warning'}, `${c.name} — and ${all.length - 10} more warning(s) in results.json`));
      }
      if (warnings.length) out.push(el('details', {class: 'definition metric-warnings'}, el('summary', null, `Warnings (${count})`), ...warnings));
      if (refs) out.push(el('details', {class: 'definition metric-references'}, el('summary', null, `References (${(metric.references || []).length})`), refs));
      return out;
    };
    if (metric.skipped) {
      sec.append(el('p', {class: 'warning'}, 'Skipped: ' + metric.skipped));
      if (refs) sec.append(...afterNumbers());
      return sec;
    }
    // A metric that lays its results out in tables keeps its long list of values one click away.
    const laidOut = metric.candidates.some((c) => (c.replicates || []).concat(c.combined ? [c.combined] : [])
      .some((r) => r.details && (r.details.tables || []).length));
    const values = valuesTable(metric);
    sec.append(laidOut ? el('details', {class: 'definition metric-values'}, el('summary', null, 'All values, one row per statistic and scope'), values) : values);
    const subgroups = subgroupsBlock(metric);
    if (subgroups) sec.append(subgroups);

    // Plots and detail tables of one candidate and replicate at a time.
    const hasDetails = metric.candidates.some((c) => (c.replicates || []).concat(c.combined ? [c.combined] : [])
      .some((r) => r.details && Object.keys(r.details).length));
    if (!hasDetails) {
      sec.append(...afterNumbers());
      return sec;
    }
    let ci = 0, ri = 0;
    const controls = el('div', {class: 'controls'});
    const area = el('div');
    const candButtons = metric.candidates.map((c, i) => el('button', {type: 'button', onclick: () => { ci = i; ri = 0; draw(); }}, entryName(c)));
    const repSelect = el('select', {onchange: (e) => { ri = Number(e.target.value); draw(); }});
    controls.append(el('span', {class: 'muted'}, 'Candidate: '), ...candButtons, el('label', null, ' replicate: ', repSelect));
    function draw() {
      candButtons.forEach((b, i) => b.classList.toggle('active', i === ci));
      const c = metric.candidates[ci];
      // Only replicates whose plots and tables the report carries can be chosen.
      const withDetails = (c.replicates || []).map((r, i) => [r, i]).filter(([r]) => r.details && Object.keys(r.details).length);
      repSelect.replaceChildren(...(c.combined ? [el('option', {value: '0'}, 'combined')] :
        withDetails.map(([r, i]) => el('option', {value: String(i)}, String(r.replicate)))));
      repSelect.value = String(ri);
      repSelect.disabled = !!c.combined || withDetails.length < 2;
      const chosen = resultFor(metric, ci, ri);
      area.replaceChildren();
      if (!chosen) return;
      for (const n of chosen.result.report_notes || []) area.append(el('div', {class: 'note'}, 'Report summary: ' + n));
      area.append(...metricTables((chosen.result.details || {}).tables));
      const plots = (chosen.result.details && chosen.result.details.plots) || [];
      if (plots.length) {
        const grid = el('div', {class: 'plots'});
        area.append(grid);
        let shown = 0;
        const more = el('button', {type: 'button', class: 'more-plots', onclick: () => showMore()});
        const showMore = () => {
          grid.append(...plots.slice(shown, shown + PLOTS_PAGE).map(plotCard));
          shown = Math.min(plots.length, shown + PLOTS_PAGE);
          more.textContent = `show ${Math.min(PLOTS_PAGE, plots.length - shown)} more plot(s) of ${plots.length - shown} not shown`;
          if (shown >= plots.length) more.remove();
        };
        showMore();
        if (shown < plots.length) area.append(el('div', {class: 'controls'}, more));
      }
      area.append(...detailsBlocks(chosen.result.details));
    }
    sec.append(controls, area, ...afterNumbers());
    draw();
    return sec;
  }

  function familySections() {
    const metrics = doc.metrics || [];
    const order = FAMILIES.map((f) => f[0]);
    const families = [...new Set(metrics.map((m) => m.family))]
      .sort((a, b) => (order.indexOf(a) < 0 ? 99 : order.indexOf(a)) - (order.indexOf(b) < 0 ? 99 : order.indexOf(b)));
    return {families: families, nodes: families.map((f) => {
      const info = FAMILIES.find((e) => e[0] === f);
      return detailSection('family-' + slug(f), familyLabel(f) + (info ? ': ' + info[2].charAt(0).toLowerCase() + info[2].slice(1) : ''),
        metrics.filter((m) => m.family === f).map(metricSection));
    })};
  }

  // The release policy: its criteria and every check behind the verdict.
  function policySection() {
    const v = doc.verdict;
    if (!v) return null;
    const sec = detailSection('policy', 'Release policy: criteria and every check');
    const criteria = (v.policy && v.policy.criteria) || [];
    sec.append(el('p', {class: 'note'}, `Policy: ${v.policy && v.policy.source ? v.policy.source : 'not stated'}.`));
    if (criteria.length) sec.append(el('ul', null, criteria.map((c) => el('li', null, el('strong', null, c.id), ': ', c.text || ''))));
    const unitOf = (id) => {
      const c = criteria.find((x) => x.id === id);
      const h = c ? card.headlines.find((x) => x.metric === c.metric && x.statistic === c.statistic && (x.scope || 'all') === (c.scope || 'all')) : null;
      return h ? h.unit : undefined;
    };
    const rows = [];
    for (const c of v.candidates || []) {
      for (const r of c.reasons || []) rows.push(row([c.name, c.status, r], c.name + ' ' + r));
    }
    if (rows.length) sec.append(el('h3', null, 'Reasons'), pagedTable(['Candidate', 'Status', 'Reason'], rows));
    const checks = [];
    for (const c of v.candidates || []) for (const k of c.checks || []) {
      const u = unitOf(k.criterion);
      checks.push(row([c.name, k.criterion, fmtUnit(k.value, u), fmtUnit(k.baseline, u), fmtUnit(k.limit, u), k.status, k.reason || ''], c.name + ' ' + k.criterion + ' ' + k.status));
    }
    if (checks.length) sec.append(el('h3', null, 'Checks'), pagedTable(['Candidate', 'Criterion', 'Value', 'Baseline', 'Limit', 'Status', 'Why'], checks));
    return sec;
  }

  // The columns as read (with the variable labels a Stata, SPSS or SAS file gives) and what each
  // file had read as missing by a code or by its own declaration.
  function dataSection() {
    const columns = Array.isArray(doc.columns) ? doc.columns : [];
    const missing = Array.isArray(doc.treated_as_missing) ? doc.treated_as_missing : [];
    if (!columns.length && !missing.length) return null;
    const sec = detailSection('data', 'Data: columns and what was read as missing');
    if (columns.length) {
      const labelled = columns.some((c) => c && typeof c.label === 'string' && c.label);
      const header = labelled ? ['Column', 'Label', 'Kind'] : ['Column', 'Kind'];
      const rows = columns.map((c) => {
        const kind = `${c.kind || ''}${c.kind_source === 'user' ? ' (as declared)' : ''}`;
        const cells = labelled ? [valueText(c.name), c.label ? valueText(c.label) : '', kind] : [valueText(c.name), kind];
        return row(cells, cells.join(' '));
      });
      sec.append(el('h3', null, 'Columns'), pagedTable(header, rows, {className: 'data-columns'}));
    }
    if (missing.length) {
      const rows = missing.map((m) => {
        const cells = [valueText(m.file), valueText(m.role), valueText(m.column),
          m.code === null || m.code === undefined ? 'declared missing in the file' : valueText(m.code),
          typeof m.count === 'number' ? m.count : valueText(m.count)];
        return row(cells, cells.join(' '));
      });
      sec.append(el('h3', null, 'Read as missing'),
        el('p', {class: 'muted'}, 'Besides blanks and the missing-value spellings: values read as missing by a declared code, or declared missing by the file itself.'),
        pagedTable(['File', 'Role', 'Column', 'Code', 'Values'], rows, {className: 'data-missing'}));
    }
    return sec;
  }

  // Related tables (results.json "relations"): whether each relation holds in every dataset.
  function structureSection() {
    const relations = doc.relations || [];
    if (!relations.length) return null;
    const sec = detailSection('structure', 'Structure and households');
    sec.append(el('p', {class: 'note'},
      'Each relation between related tables in every dataset: records whose parent is missing (orphans, or a missing key), ',
      'repeated keys, parents without children, parents whose number of children the confidential data never show, and the ',
      'distance of the children-per-parent distribution from the confidential one. A candidate with orphans or repeated keys ',
      'that the confidential data do not have fails.'));
    const share = (count, of) => (typeof count === 'number' ? plain(count) : fmt(count)) +
      (typeof of === 'number' ? ` (${plain(of * 100)} %)` : '');
    for (const r of relations) {
      const rows = (r.datasets || []).map((d) => {
        const cells = [valueText(d.dataset), d.parents, d.children, share(d.orphans, d.orphan_share),
          d.missing_foreign_keys, (d.duplicate_parent_keys || 0) + (d.duplicate_child_keys || 0),
          share(d.childless_parents, d.childless_share),
          share(d.children_per_parent_outside_bounds, d.outside_bounds_share), d.cardinality_tv, d.cardinality_ks];
        return row(cells, cells.join(' '));
      });
      sec.append(el('h3', null, `${valueText(r.child)} in ${valueText(r.parent)}`),
        pagedTable(['Dataset', 'Parents', 'Children', 'Orphans', 'Missing key', 'Repeated keys', 'Childless parents',
          'Outside the confidential range', 'Cardinality TV', 'KS'], rows, {className: 'relations'}));
    }
    return sec;
  }

  function warningsSection() {
    if (!(doc.warnings || []).length) return null;
    return detailSection('warnings', `Warnings (${doc.warnings.length})`, doc.warnings.map((w) => el('div', {class: 'warning'}, valueText(w))));
  }

  function build() {
    const app = document.getElementById('app');
    const fam = familySections();
    app.replaceChildren(header(), toc(fam.families),
      el('main', null, executiveSection(),
        el('h2', {class: 'details-title'}, 'Details'),
        el('p', {class: 'note no-print'}, 'Each section opens with a click.'),
        policySection(), scorecardSection(), comparisonSection(), structureSection(), fam.nodes, dataSection(),
        warningsSection(),
        el('p', {class: 'note'}, 'All numbers are also in results.json and results.tsv next to this file.')));
  }

  // A link into a collapsed section opens it (and the sections around it).
  function openTarget(id) {
    let node = id ? document.getElementById(id) : null;
    for (let n = node; n; n = n.parentElement) if (n.tagName === 'DETAILS') n.open = true;
    if (node) node.scrollIntoView();
  }
  document.addEventListener('click', (e) => {
    const a = e.target.closest ? e.target.closest('a[href^="#"]') : null;
    if (a) { e.preventDefault(); openTarget(a.getAttribute('href').slice(1)); }
  });

  try {
    build();
  } catch (error) {
    console.error('synthaudit report: failed to build the page:', error);
    throw error;
  }
  // For tests and scripts: resolves once every plot has rendered (rejects if one failed).
  window.synthauditReady = Promise.all(pending).then(() => pending.length);
})();
