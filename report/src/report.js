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
    if (records.length === 0) {
      cardNode.append(el('div', {class: 'note'}, 'no data for this plot'));
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
    return el('header', {class: 'top'},
      el('h1', null, 'Synthetic data audit'),
      el('div', {class: 'facts'}, facts.join(' · ')),
      el('div', {class: 'facts'}, 'Candidates: ' + (cands.length ? cands.join(', ') : 'none')));
  }

  function toc(families) {
    return el('nav', {class: 'toc'},
      el('a', {href: '#scorecard'}, 'Scorecard'), el('a', {href: '#comparison'}, 'Candidate comparison'),
      families.map((f) => el('a', {href: '#family-' + slug(f)}, familyLabel(f))),
      (doc.warnings || []).length ? el('a', {href: '#warnings'}, `Warnings (${doc.warnings.length})`) : null);
  }

  // Colour of a scorecard cell: green for the best candidate on that headline, red for the
  // worst, in between by value; neutral when there is nothing to compare.
  function cellColor(h, i) {
    const vals = h.values.filter((v) => typeof v === 'number');
    const v = h.values[i];
    if (typeof v !== 'number' || vals.length < 2) return null;
    // By rank (distance to the statistic's ideal), so a target statistic is coloured by how far
    // it is from its target, not by its raw value.
    const ranks = h.ranks.filter((r) => typeof r === 'number');
    const best = Math.min(...ranks), worst = Math.max(...ranks);
    if (best === worst || typeof h.ranks[i] !== 'number') return '#f4f4f4';
    const t = (h.ranks[i] - best) / (worst - best);  // 0 best .. 1 worst
    const mix = (a, b, s) => Math.round(a + (b - a) * s);
    const [g, n, r] = [[201, 236, 210], [244, 244, 244], [247, 199, 193]];
    const c = t < 0.5 ? g.map((x, k) => mix(x, n[k], t * 2)) : n.map((x, k) => mix(x, r[k], (t - 0.5) * 2));
    return `rgb(${c[0]},${c[1]},${c[2]})`;
  }

  function scorecardSection() {
    const sec = el('section', {id: 'scorecard'}, el('h2', null, 'Scorecard'));
    if (!card.headlines.length) {
      sec.append(el('p', {class: 'note'}, 'No metric in these results declares a headline.'));
      return sec;
    }
    sec.append(el('p', {class: 'note'},
      'Each cell is the candidate\'s mean over its replicates (or the value combined over them). ',
      'Colours compare the candidates on each line: ', el('span', {class: 'legend-swatch'}), ' best → worst. #k is the rank.'));
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
          title: (h.replicates[i] || []).length > 1 ? 'replicates: ' + h.replicates[i].map(fmt).join(', ') : null},
          fmt(v), h.ranks[i] !== null ? el('span', {class: 'rank'}, '#' + fmt(h.ranks[i])) : null)),
        el('td', {class: 'reading'}, h.reading || '')));
    }
    table.append(body);
    sec.append(table);
    return sec;
  }

  function comparisonSection() {
    const sec = el('section', {id: 'comparison'}, el('h2', null, 'Candidate comparison'));
    if (card.candidates.length === 0) { sec.append(el('p', {class: 'note'}, 'No candidates.')); return sec; }
    sec.append(el('h3', null, 'Ranking'),
      el('p', {class: 'note'}, 'Mean rank over the scorecard headlines (1 = best on every one), and separately over the utility and the risk headlines.'));
    const rows = card.ranking.map((r, k) => row([k + 1, r.candidate, r.mean_rank, r.utility_rank, r.risk_rank, r.ranked], r.candidate));
    sec.append(pagedTable(['Place', 'Candidate', 'Mean rank', 'Utility rank', 'Risk rank', 'Headlines ranked'], rows, {className: 'ranking'}));

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

  // Values of one metric: one row per (statistic, scope), one column per candidate.
  function valuesTable(metric) {
    const keys = [], seen = new Map();
    const perCandidate = metric.candidates.map((c) => {
      const src = c.combined || c.mean || (c.replicates && c.replicates.length === 1 ? c.replicates[0] : null);
      const map = new Map(), reps = new Map();
      for (const v of (src && src.values) || []) {
        const k = v.statistic + '\u0000' + v.scope;
        if (!seen.has(k)) { seen.set(k, true); keys.push([v.statistic, v.scope]); }
        map.set(k, v.value);
      }
      for (const r of c.replicates || []) for (const v of r.values || []) {
        const k = v.statistic + '\u0000' + v.scope;
        if (!reps.has(k)) reps.set(k, []);
        reps.get(k).push(v.value);
      }
      return {map: map, reps: reps};
    });
    const rows = keys.map(([s, sc]) => {
      const k = s + '\u0000' + sc;
      const cells = [s, sc].concat(perCandidate.map((p) => p.map.has(k) ? p.map.get(k) : null));
      return {text: s + ' ' + sc, node: () => el('tr', null, el('td', null, s), el('td', null, sc),
        perCandidate.map((p) => {
          const r = p.reps.get(k) || [];
          return el('td', {class: 'num', title: r.length > 1 ? 'replicates: ' + r.map(fmt).join(', ') : null}, fmt(p.map.has(k) ? p.map.get(k) : null));
        }))};
    });
    if (!rows.length) return el('p', {class: 'note'}, 'No values.');
    const head = ['Statistic', 'Scope'].concat(metric.candidates.map((c) => c.name));
    const hover = perCandidate.some((p) => [...p.reps.values()].some((r) => r.length > 1));
    const source = metric.granularity === 'per-candidate' ? 'combined over replicates'
      : 'mean over replicates' + (hover ? ' (hover for each replicate)' : '; each replicate\'s values are in results.tsv');
    return el('div', null, el('div', {class: 'note'}, `Values: ${source}.`), pagedTable(head, rows, {className: 'values'}));
  }

  // Details other than plots: arrays of records become tables, anything else a JSON block.
  function detailsBlocks(details) {
    const out = [];
    for (const [key, value] of Object.entries(details || {})) {
      if (key === 'plots') continue;
      if (Array.isArray(value) && value.length && value.every((r) => r && typeof r === 'object' && !Array.isArray(r))) {
        const cols = [...new Set(value.flatMap((r) => Object.keys(r)))].slice(0, 12);
        const rows = value.map((r) => row(cols.map((c) => (typeof r[c] === 'object' && r[c] !== null ? JSON.stringify(r[c]) : (r[c] === undefined ? '' : r[c]))), cols.map((c) => String(r[c])).join(' ')));
        out.push(el('details', {class: 'definition', open: value.length <= PAGE_ROWS}, el('summary', null, `${key} (${value.length} rows)`), pagedTable(cols, rows)));
      } else {
        out.push(el('details', {class: 'definition'}, el('summary', null, key), el('pre', null, JSON.stringify(value, null, 1).slice(0, 20000))));
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
    if (params.length) def.append(el('div', {class: 'note'}, 'Parameters used: '), pagedTable(['Parameter', 'Value'], params.map(([k, v]) => row([k, JSON.stringify(v)], k))));
    const stats = statisticsTable(metric);
    if (stats) def.append(el('div', {class: 'note'}, 'Statistics: '), stats);
    sec.append(def);
    const refs = referencesList(metric);
    if (refs) sec.append(refs);
    if (metric.skipped) { sec.append(el('p', {class: 'warning'}, 'Skipped: ' + metric.skipped)); return sec; }
    for (const c of metric.candidates) {
      const all = (c.replicates || []).flatMap((r) => (r.warnings || []).map((w) => `replicate ${r.replicate}: ${w}`))
        .concat(((c.combined || {}).warnings || []));
      for (const w of all.slice(0, 10)) sec.append(el('div', {class: 'warning'}, `${c.name} — ${w}`));
      if (all.length > 10) sec.append(el('div', {class: 'warning'}, `${c.name} — and ${all.length - 10} more warning(s) in results.json`));
    }
    sec.append(valuesTable(metric));

    // Plots and detail tables of one candidate and replicate at a time.
    const hasDetails = metric.candidates.some((c) => (c.replicates || []).concat(c.combined ? [c.combined] : [])
      .some((r) => r.details && Object.keys(r.details).length));
    if (!hasDetails) return sec;
    let ci = 0, ri = 0;
    const controls = el('div', {class: 'controls'});
    const area = el('div');
    const candButtons = metric.candidates.map((c, i) => el('button', {type: 'button', onclick: () => { ci = i; ri = 0; draw(); }}, c.name));
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
    sec.append(controls, area);
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
      return el('section', {id: 'family-' + slug(f)}, el('h2', null, familyLabel(f)),
        info ? el('p', {class: 'note'}, info[2]) : null,
        metrics.filter((m) => m.family === f).map(metricSection));
    })};
  }

  function warningsSection() {
    if (!(doc.warnings || []).length) return null;
    return el('section', {id: 'warnings'}, el('h2', null, 'Warnings'), doc.warnings.map((w) => el('div', {class: 'warning'}, String(w))));
  }

  function build() {
    const app = document.getElementById('app');
    const fam = familySections();
    app.replaceChildren(header(), toc(fam.families),
      el('main', null, scorecardSection(), comparisonSection(), fam.nodes, warningsSection(),
        el('p', {class: 'note'}, 'All numbers are also in results.json and results.tsv next to this file.')));
  }

  try {
    build();
  } catch (error) {
    console.error('synthaudit report: failed to build the page:', error);
    throw error;
  }
  // For tests and scripts: resolves once every plot has rendered (rejects if one failed).
  window.synthauditReady = Promise.all(pending).then(() => pending.length);
})();
