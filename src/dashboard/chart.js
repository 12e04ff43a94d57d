/*
 * Waymark dashboard: draws the analytics chart with uPlot (served by this server beside this
 * file). The page carries its data as JSON in the chart element's `data-series` attribute (no
 * inline script: the CSP forbids it, and htmx drops <script> blocks from swapped pages). Runs at
 * load and after every htmx swap; without JavaScript the page's table of the same figures stays
 * readable.
 * Data: { timezone, x: [unix seconds], clicks: [], leads?: [], sales?: [] }, or for a comparison
 * { timezone, x, lines: [{ label, values: [] }] } (one line per link, tag or campaign compared).
 * Also, on every page: each <time data-local datetime="ISO"> is rewritten in the viewer's time
 * zone ("2026-03-01 15:05:09") and each [data-zone-name] names that zone; without JavaScript they
 * stay in UTC and say so.
 */
(function () {
  'use strict';
  var charts = [];

  // Axis text and grid in the page's theme colours (light or dark: dashboard.css's variables).
  function themeColours() {
    var css = getComputedStyle(document.documentElement);
    return { fg: css.getPropertyValue('--muted').trim() || '#5b6169', line: css.getPropertyValue('--line').trim() || '#d8dbe0' };
  }
  function axis(theme) {
    return { stroke: theme.fg, grid: { stroke: theme.line, width: 1 }, ticks: { stroke: theme.line, width: 1 } };
  }
  // The y axis as wide as its longest label ("20,000" must not lose its first digits).
  function axisSize(u, values) {
    if (!values || !values.length) return 40;
    var ctx = u.ctx;
    ctx.save();
    ctx.font = u.axes[1].font[0];
    var widest = values.reduce(function (w, v) { return Math.max(w, ctx.measureText(String(v)).width); }, 0);
    ctx.restore();
    return Math.ceil(widest / (window.devicePixelRatio || 1)) + 24;
  }

  // uPlot is in the head of chart pages only; a chart swapped in by htmx (the body of a boosted
  // visit) gets it from the chart's data-uplot-src / data-uplot-css, once, then is drawn.
  var loading = false;
  function loadUplot(holder) {
    if (loading) return;
    loading = true;
    var css = holder.getAttribute('data-uplot-css');
    if (css && !document.querySelector('link[href="' + css + '"]')) {
      var link = document.createElement('link');
      link.rel = 'stylesheet';
      link.href = css;
      document.head.appendChild(link);
    }
    var script = document.createElement('script');
    script.src = holder.getAttribute('data-uplot-src');
    script.onload = draw;
    script.onerror = function () { loading = false; };
    document.head.appendChild(script);
  }

  function draw() {
    charts.forEach(function (c) { c.destroy(); });
    charts = [];
    var holder = document.getElementById('analytics-chart');
    if (!holder) return;
    if (typeof uPlot === 'undefined') {
      // Head scripts are deferred: at DOMContentLoaded uPlot has run if the head names it.
      if (holder.getAttribute('data-uplot-src') && document.readyState !== 'loading') loadUplot(holder);
      return;
    }
    var data;
    try { data = JSON.parse(holder.getAttribute('data-series') || '{}'); } catch (e) { return; }
    holder.textContent = '';
    var zone = data.timezone || 'UTC';
    var theme = themeColours();
    var width = Math.max(280, holder.clientWidth || 600);
    var opts = {
      width: width,
      height: 260,
      tzDate: function (ts) { return uPlot.tzDate(new Date(ts * 1e3), zone); },
      legend: { live: true },
      cursor: { drag: { x: false, y: false } },
      scales: { x: { time: true } },
      axes: [axis(theme), Object.assign(axis(theme), { size: axisSize })],
      series: [{}],
    };
    // Only the series the page sent (a public page without conversions sends clicks alone).
    var lines = [];
    if (data.lines) {
      var palette = ['#2346c7', '#b36b00', '#1b6e3a', '#a3246b', '#5a4fcf'];
      data.lines.forEach(function (line, i) {
        opts.series.push({ label: line.label, stroke: palette[i % palette.length], width: 2 });
        lines.push(line.values);
      });
    }
    [
      ['clicks', { label: 'Clicks', stroke: '#2346c7', width: 2, fill: 'rgba(35,70,199,0.08)' }],
      ['leads', { label: 'Leads', stroke: '#b36b00', width: 2 }],
      ['sales', { label: 'Sales', stroke: '#1b6e3a', width: 2 }],
    ].forEach(function (s) {
      if (!data[s[0]]) return;
      opts.series.push(s[1]);
      lines.push(data[s[0]]);
    });
    charts.push(new uPlot(opts, [data.x || []].concat(lines), holder));
  }

  // Times in the viewer's zone, as "YYYY-MM-DD HH:MM:SS" (the Swedish locale writes ISO-like dates).
  function localTimes() {
    var zone;
    var format;
    try {
      zone = Intl.DateTimeFormat().resolvedOptions().timeZone;
      format = new Intl.DateTimeFormat('sv-SE', { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false });
    } catch (e) { return; }
    document.querySelectorAll('time[data-local]:not([data-local-done])').forEach(function (t) {
      var d = new Date(t.getAttribute('datetime'));
      if (isNaN(d.getTime())) return;
      t.textContent = format.format(d);
      t.title = t.getAttribute('datetime');
      t.setAttribute('data-local-done', '');
    });
    if (zone) document.querySelectorAll('[data-zone-name]').forEach(function (n) { n.textContent = '(' + zone + ')'; });
  }
  document.addEventListener('DOMContentLoaded', localTimes);
  document.addEventListener('htmx:afterSettle', localTimes);
  if (document.readyState !== 'loading') localTimes();

  var resizeTimer;
  window.addEventListener('resize', function () {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(draw, 200);
  });
  document.addEventListener('DOMContentLoaded', draw);
  document.addEventListener('htmx:afterSettle', draw);
  if (document.readyState !== 'loading') draw();
})();
