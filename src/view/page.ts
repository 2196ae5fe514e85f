/**
 * The viewer's single page: HTML, CSS and a small script, self-contained (no CDN, no network).
 * The script draws the diagram from `/api/machine` (positions computed by graph.ts) and steps
 * through the timeline from `/api/sessions/<id>/events` (timeline.ts).
 *
 * The script is plain browser JavaScript kept in a string; it avoids template literals so that it
 * can live inside one here.
 */

const CSS = String.raw`
:root {
  --bg: #f6f7f9; --card: #fff; --ink: #1d2430; --muted: #667085; --line: #d0d5dd;
  --accent: #2f6fed; --accent-soft: #dbe6fd; --visited: #eef2f8; --user: #0f766e; --assistant: #7c3aed;
  --warn: #b42318; --mono: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace;
}
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); color: var(--ink);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header { display: flex; align-items: center; gap: 16px; padding: 10px 18px; background: #101828; color: #f2f4f7; }
header .brand { font-weight: 700; font-size: 16px; }
header .brand span { font-weight: 400; color: #98a2b3; margin-left: 6px; }
header #meta { color: #d0d5dd; font-size: 13px; flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
header select { max-width: 420px; font: inherit; font-size: 13px; padding: 3px 6px; border-radius: 6px; }
#live { color: #32d583; font-weight: 600; font-size: 13px; }
main { display: grid; grid-template-columns: minmax(420px, 41%) minmax(0, 1fr); gap: 14px; padding: 14px; height: calc(100% - 52px); }
section { min-height: 0; display: flex; flex-direction: column; gap: 14px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 12px 14px; }
.card h2 { margin: 0 0 8px; font-size: 13px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); display: flex; flex-wrap: wrap; gap: 4px 8px; align-items: baseline; }
.card h2 .sub { text-transform: none; letter-spacing: 0; font-weight: 500; font-size: 12px; }
#diagram { width: 100%; height: auto; display: block; }
.node rect { fill: #fff; stroke: #98a2b3; stroke-width: 1.3; }
.node text { font-size: 12.5px; fill: var(--ink); dominant-baseline: central; text-anchor: middle; }
.node.transient rect { stroke-dasharray: 4 3; fill: #fcfcfd; }
.node.kind-choice text { font-style: italic; fill: var(--muted); }
.node.kind-final rect { stroke-width: 3.2; stroke: #667085; }
.node.kind-compound rect { fill: #f9fafb; stroke: #b9c0cc; }
.node.kind-compound text { text-anchor: start; font-weight: 600; fill: var(--muted); font-size: 12px; }
.node.visited rect { fill: var(--visited); }
.node.current rect { fill: var(--accent); stroke: #1849a9; }
.node.current text { fill: #fff; font-weight: 700; }
.edge { fill: none; stroke: #98a2b3; stroke-width: 1.2; }
.edge.back { stroke-dasharray: 5 3; }
.edge.taken { stroke: var(--accent); stroke-width: 2.6; stroke-dasharray: none; }
.edge-label { font-size: 10px; fill: #475467; paint-order: stroke; stroke: #fff; stroke-width: 3px; }
.edge-label.taken { fill: #1849a9; font-weight: 700; }
.legend { font-size: 12px; color: var(--muted); margin-top: 6px; }
.never-sent { border: 1.5px dashed #f97066; }
.badge { display: inline-block; font-size: 11px; font-weight: 600; text-transform: none; letter-spacing: 0;
  padding: 1px 7px; border-radius: 999px; background: #fee4e2; color: var(--warn); }
.badge.ok { background: #d1fadf; color: #05603a; }
.badge.info { background: var(--accent-soft); color: #1849a9; }
dl.fields { display: grid; grid-template-columns: 150px 1fr; gap: 4px 10px; margin: 0; }
dl.fields dt { color: var(--muted); font-family: var(--mono); font-size: 13px; }
dl.fields dd { margin: 0; font-family: var(--mono); font-size: 13px; font-weight: 600; }
#notes { margin: 8px 0 0; padding-left: 18px; color: #344054; font-size: 13px; }
.controls { display: flex; align-items: center; gap: 8px; flex-wrap: wrap; }
.controls button { font: inherit; padding: 5px 12px; border-radius: 7px; border: 1px solid var(--line); background: #fff; cursor: pointer; }
.controls button:hover:not(:disabled) { background: var(--accent-soft); }
.controls button:disabled { opacity: .45; cursor: default; }
#step-label { font-weight: 700; min-width: 120px; text-align: center; }
#scrub { flex: 1; min-width: 120px; }
.hint { color: var(--muted); font-size: 12px; }
#panes { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.15fr); gap: 14px; min-height: 0; flex: 1; }
#panes .card { min-height: 0; display: flex; flex-direction: column; }
.scroll { overflow: auto; min-height: 0; flex: 1; }
.msg { border: 1px solid var(--line); border-radius: 8px; margin-bottom: 8px; padding: 6px 9px; background: #fff; }
.msg.new { box-shadow: 0 0 0 2px var(--accent); }
.msg .head { display: flex; gap: 8px; align-items: center; font-size: 12px; color: var(--muted); margin-bottom: 4px; }
.msg .role { font-weight: 700; text-transform: uppercase; font-size: 11px; letter-spacing: .05em; }
.msg.user .role { color: var(--user); } .msg.assistant .role { color: var(--assistant); }
.block { margin: 4px 0; }
.block.text { white-space: pre-wrap; }
.block.tool { border-left: 4px solid var(--chip); background: #fafafa; padding: 4px 8px; border-radius: 4px; }
.block pre { margin: 3px 0 0; white-space: pre-wrap; word-break: break-word; font: 12px/1.4 var(--mono); max-height: 220px; overflow: auto; }
.chip { font: 11px var(--mono); padding: 0 6px; border-radius: 4px; background: var(--chip); color: #fff; }
.status { font-size: 12px; color: var(--muted); margin-top: 2px; }
.status.err { color: var(--warn); }
pre#request { margin: 0; font: 12px/1.45 var(--mono); white-space: pre-wrap; word-break: break-word; }
.j-key { color: #175cd3; } .j-str { color: #067647; } .j-num { color: #b54708; } .j-lit { color: #c11574; }
.j-cache { background: #fef0c7; }
#unsent { margin-top: 10px; padding: 8px 10px; font: 12px/1.5 var(--mono); border-radius: 8px; }
#unsent b { font-family: system-ui, sans-serif; }
.empty { color: var(--muted); font-style: italic; }
`;

const SCRIPT = String.raw`
(function () {
  'use strict';
  var config = window.AGENTLOOP || {};
  var FINAL = { done: true, failed: true, aborted: true };
  var S = { graph: null, timeline: null, step: 0, follow: true, id: null, source: null };
  var $ = function (id) { return document.getElementById(id); };
  var SVG = 'http://www.w3.org/2000/svg';

  function h(tag, attrs, children) {
    var node = document.createElement(tag);
    for (var k in (attrs || {})) {
      if (k === 'text') node.textContent = attrs[k];
      else if (k === 'style') node.setAttribute('style', attrs[k]);
      else node.setAttribute(k, attrs[k]);
    }
    (children || []).forEach(function (c) { if (c) node.appendChild(typeof c === 'string' ? document.createTextNode(c) : c); });
    return node;
  }
  function s(tag, attrs) {
    var node = document.createElementNS(SVG, tag);
    for (var k in attrs) node.setAttribute(k, attrs[k]);
    return node;
  }
  function hue(id) {
    var x = 0;
    for (var i = 0; i < id.length; i++) x = (x * 31 + id.charCodeAt(i)) % 360;
    return 'hsl(' + x + ', 62%, 42%)';
  }
  function usageText(u) {
    if (!u) return '—';
    return 'in ' + u.input_tokens + ' · out ' + u.output_tokens + ' · cache read ' + u.cache_read_input_tokens +
      ' · cache write ' + u.cache_creation_input_tokens;
  }

  // ---- diagram -------------------------------------------------------------------------------
  function drawDiagram(g) {
    var svg = $('diagram');
    svg.setAttribute('viewBox', '0 0 ' + g.width + ' ' + g.height);
    var defs = s('defs', {});
    [['arrow', '#98a2b3'], ['arrow-taken', '#2f6fed']].forEach(function (m) {
      var marker = s('marker', { id: m[0], viewBox: '0 0 10 10', refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: 'auto-start-reverse' });
      marker.appendChild(s('path', { d: 'M0,0 L10,5 L0,10 z', fill: m[1] }));
      defs.appendChild(marker);
    });
    svg.appendChild(defs);
    g.nodes.filter(function (n) { return n.kind === 'compound'; }).forEach(function (n) { svg.appendChild(nodeShape(n)); });
    g.edges.forEach(function (e, i) {
      svg.appendChild(s('path', { d: e.path, 'class': 'edge' + (e.back ? ' back' : ''), 'marker-end': 'url(#arrow)', 'data-edge': i }));
    });
    g.nodes.filter(function (n) { return n.kind !== 'compound'; }).forEach(function (n) { svg.appendChild(nodeShape(n)); });
    var placed = g.nodes.filter(function (n) { return n.kind !== 'compound'; })
      .map(function (n) { return { x: n.x, y: n.y, width: n.w, height: n.h }; });
    g.edges.forEach(function (e, i) {
      var t = s('text', { 'class': 'edge-label', 'data-edge': i, x: e.labelAt.x, y: e.labelAt.y });
      t.textContent = e.labels.join(' | ');
      svg.appendChild(t);
      if (e.labelAt.rotate) {
        t.setAttribute('transform', 'rotate(-90 ' + e.labelAt.x + ' ' + e.labelAt.y + ')');
        t.setAttribute('text-anchor', 'middle');
        return;
      }
      placeLabel(t, svg.querySelector('path[data-edge="' + i + '"]'), placed);
    });
  }
  function overlap(a, b) {
    var x = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
    var y = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
    return x * y;
  }
  // Slides a label along its edge to the spot where it covers the fewest boxes and other labels.
  function placeLabel(t, path, placed) {
    var length = path.getTotalLength();
    var best = null;
    [0.5, 0.4, 0.6, 0.3, 0.7, 0.22, 0.78].forEach(function (f) {
      if (best && best.cost === 0) return;
      var p = path.getPointAtLength(length * f);
      t.setAttribute('x', p.x + 4);
      t.setAttribute('y', p.y + 3);
      var box = t.getBBox();
      var cost = placed.reduce(function (sum, other) { return sum + overlap(box, other); }, 0);
      if (!best || cost < best.cost) best = { cost: cost, x: p.x + 4, y: p.y + 3 };
    });
    t.setAttribute('x', best.x);
    t.setAttribute('y', best.y);
    placed.push(t.getBBox());
  }
  function nodeShape(n) {
    var g = s('g', { 'class': 'node kind-' + n.kind + (n.transient ? ' transient' : ''), 'data-key': n.key, 'data-id': n.id });
    g.appendChild(s('rect', { x: n.x, y: n.y, width: n.w, height: n.h, rx: n.kind === 'choice' ? 14 : 8 }));
    var t = n.kind === 'compound'
      ? s('text', { x: n.x + 10, y: n.y + 13 })
      : s('text', { x: n.x + n.w / 2, y: n.y + n.h / 2 });
    t.textContent = n.key;
    g.appendChild(t);
    var title = s('title', {});
    title.textContent = n.transient ? n.key + ' (eventless: the machine passes through, never rests here)' : n.key;
    g.appendChild(title);
    return g;
  }
  // The edges from one resting state to the next, through states only passed through. The
  // transcript has the states, not the microsteps: when several paths fit, the shortest are shown.
  function edgesTaken(from, to) {
    var g = S.graph, paths = [];
    if (!g || from === null) return [];
    var transient = {};
    g.nodes.forEach(function (n) { if (n.transient) transient[n.key] = true; });
    function walk(key, path, depth) {
      g.edges.forEach(function (e, i) {
        if (e.sourceKeys.indexOf(key) < 0 || path.indexOf(i) >= 0) return;
        if (e.targetKey === to) paths.push(path.concat([i]));
        else if (transient[e.targetKey] && depth < 4) walk(e.targetKey, path.concat([i]), depth + 1);
      });
    }
    walk(from, [], 0);
    var shortest = Math.min.apply(null, paths.map(function (p) { return p.length; }));
    return [].concat.apply([], paths.filter(function (p) { return p.length === shortest; }));
  }
  function highlight(step, index) {
    var svg = $('diagram');
    var visited = {};
    S.timeline.steps.slice(0, index).forEach(function (st) { visited[st.state] = true; });
    Array.prototype.forEach.call(svg.querySelectorAll('.node'), function (n) {
      var key = n.getAttribute('data-key');
      var leaf = !n.classList.contains('kind-compound');
      n.classList.toggle('current', leaf && step && key === step.state);
      n.classList.toggle('visited', leaf && !!visited[key] && !(step && key === step.state));
    });
    var prev = index > 0 ? S.timeline.steps[index - 1].state : null;
    var taken = step ? edgesTaken(prev, step.state) : [];
    Array.prototype.forEach.call(svg.querySelectorAll('[data-edge]'), function (e) {
      var on = taken.indexOf(Number(e.getAttribute('data-edge'))) >= 0;
      e.classList.toggle('taken', on);
      if (e.tagName === 'path') e.setAttribute('marker-end', on ? 'url(#arrow-taken)' : 'url(#arrow)');
    });
  }

  // ---- timeline ------------------------------------------------------------------------------
  function messagesAt(stepIndex, limit) {
    var out = [];
    S.timeline.messages.forEach(function (m) {
      if (m.step <= stepIndex && (limit === undefined || m.index < limit)) out[m.index] = m;
    });
    var end = out.length;
    for (var i = 0; i < out.length; i++) if (!out[i]) { end = i; break; }
    return out.slice(0, end);
  }
  function lastBefore(list, stepIndex) {
    var found = null;
    list.forEach(function (x) { if (x.step <= stepIndex) found = x; });
    return found;
  }
  function resultIndex(messages) {
    var where = {};
    messages.forEach(function (m) {
      if (typeof m.message.content === 'string') return;
      m.message.content.forEach(function (b) { if (b.type === 'tool_result') where[b.tool_use_id] = m.index; });
    });
    return where;
  }
  function toolEventsAt(stepIndex) {
    var byId = {};
    S.timeline.tools.forEach(function (t) {
      if (t.step > stepIndex) return;
      var entry = byId[t.id] || (byId[t.id] = {});
      entry[t.kind] = t;
    });
    return byId;
  }

  function renderMessages(stepIndex) {
    var box = $('messages');
    box.textContent = '';
    var messages = messagesAt(stepIndex);
    $('msg-count').textContent = '(' + messages.length + ')';
    if (messages.length === 0) { box.appendChild(h('div', { 'class': 'empty', text: 'no messages yet' })); return; }
    var answered = resultIndex(messages);
    var tools = toolEventsAt(stepIndex);
    messages.forEach(function (m) {
      var role = m.message.role;
      var card = h('div', { 'class': 'msg ' + role + (m.step === stepIndex ? ' new' : ''), 'data-index': m.index });
      card.appendChild(h('div', { 'class': 'head' }, [
        h('span', { 'class': 'role', text: role }), h('span', { text: 'messages[' + m.index + ']' }),
        m.synthetic ? h('span', { 'class': 'badge', text: 'added by resume' }) : null,
        m.step === stepIndex ? h('span', { 'class': 'badge info', text: 'new at this step' }) : null,
      ]));
      var blocks = typeof m.message.content === 'string' ? [{ type: 'text', text: m.message.content }] : m.message.content;
      blocks.forEach(function (b) { card.appendChild(renderBlock(b, answered, tools)); });
      box.appendChild(card);
    });
    var fresh = box.querySelector('.msg.new');
    if (fresh) fresh.scrollIntoView({ block: 'nearest' });
  }
  function renderBlock(b, answered, tools) {
    if (b.type === 'text') return h('div', { 'class': 'block text', text: b.text });
    if (b.type === 'tool_use') {
      var status;
      if (answered[b.id] !== undefined) status = h('div', { 'class': 'status', text: '→ answered by the tool_result in messages[' + answered[b.id] + ']' });
      else if (tools[b.id] && tools[b.id].result) status = h('div', { 'class': 'status', text: '✓ finished; its result is appended when every tool of the turn is done' });
      else if (tools[b.id] && tools[b.id].start) status = h('div', { 'class': 'status', text: '… running' });
      else status = h('div', { 'class': 'status', text: 'not started yet' });
      return h('div', { 'class': 'block tool', style: '--chip: ' + hue(b.id), 'data-tool-use': b.id }, [
        h('div', {}, [h('b', { text: 'tool_use ' }), h('span', { 'class': 'chip', text: b.id }), ' ', h('b', { text: b.name })]),
        h('pre', { text: JSON.stringify(b.input, null, 2) }), status,
      ]);
    }
    if (b.type === 'tool_result') {
      var content = typeof b.content === 'string' ? b.content : JSON.stringify(b.content, null, 2);
      return h('div', { 'class': 'block tool', style: '--chip: ' + hue(b.tool_use_id), 'data-tool-result': b.tool_use_id }, [
        h('div', {}, [h('b', { text: 'tool_result for ' }), h('span', { 'class': 'chip', text: b.tool_use_id }),
          b.is_error ? h('span', { 'class': 'badge', text: 'is_error', style: 'margin-left:6px' }) : null]),
        h('pre', { text: content }),
      ]);
    }
    return h('div', { 'class': 'block' }, [h('b', { text: b.type }), h('pre', { text: JSON.stringify(b, null, 2) })]);
  }

  function highlightJson(value) {
    var text = JSON.stringify(value, null, 2)
      .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
    return text.replace(/("(?:\\.|[^"\\])*")(\s*:)?|\b(true|false|null)\b|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g,
      function (match, str, colon, lit) {
        if (str && colon) return '<span class="' + (str === '"cache_control"' ? 'j-key j-cache' : 'j-key') + '">' + str + '</span>' + colon;
        if (str) return '<span class="j-str">' + str + '</span>';
        if (lit) return '<span class="j-lit">' + lit + '</span>';
        return '<span class="j-num">' + match + '</span>';
      });
  }
  function requestBody(req) {
    var messages = messagesAt(req.step, req.messageCount).map(function (m) { return JSON.parse(JSON.stringify(m.message)); });
    req.messageCacheMarks.forEach(function (mark) {
      var message = messages[mark[0]];
      if (message && typeof message.content !== 'string' && message.content[mark[1]]) {
        message.content[mark[1]].cache_control = { type: 'ephemeral' };
      }
    });
    var body = {};
    for (var k in req.body) body[k] = req.body[k];
    body.messages = messages;
    return body;
  }
  function renderRequest(step, stepIndex) {
    var req = lastBefore(S.timeline.requests, stepIndex);
    var pre = $('request');
    if (!req) {
      $('req-label').textContent = '';
      pre.innerHTML = '<span class="empty">no request sent yet</span>';
    } else {
      $('req-label').textContent = 'turn ' + req.turnCount + ' · ' + req.messageCount + ' messages' + (req.step === stepIndex ? ' · sent at this step' : '');
      pre.innerHTML = highlightJson(requestBody(req));
    }
    var result = S.timeline.results.filter(function (r) { return r.step === stepIndex; })[0];
    $('unsent').innerHTML = '';
    $('unsent').appendChild(h('div', {}, [h('b', { text: '⊘ never sent: the loop’s own fields ' }),
      h('span', { 'class': 'badge', text: 'not in the body' })]));
    var fields = { state: step.state, turnCount: step.turnCount, transitionReason: step.transitionReason, event: step.event };
    if (result) fields.exitReason = result.exitReason;
    $('unsent').appendChild(h('div', { text: JSON.stringify(fields) }));
  }

  function render() {
    var t = S.timeline;
    var n = t ? t.steps.length : 0;
    var i = Math.max(0, Math.min(S.step, n - 1));
    S.step = i;
    $('step-label').textContent = n ? 'step ' + (i + 1) + ' / ' + n : 'no steps';
    $('prev').disabled = $('first').disabled = i <= 0;
    $('next').disabled = $('last').disabled = i >= n - 1;
    $('scrub').max = Math.max(0, n - 1);
    $('scrub').value = i;
    var step = n ? t.steps[i] : null;
    $('f-state').textContent = step ? step.state : '—';
    $('f-turn').textContent = step ? String(step.turnCount) : '—';
    $('f-reason').textContent = step ? (step.transitionReason === null ? 'null' : step.transitionReason) : '—';
    $('f-event').textContent = step ? step.event : '—';
    var usage = t ? lastBefore(t.usage, i) : null;
    $('f-usage').textContent = usage && step && usage.turnCount === step.turnCount ? usageText(usage.usage) : '— (no reply yet this turn)';
    $('f-total').textContent = usage ? usageText(usage.total) : '—';
    var notes = $('notes');
    notes.textContent = '';
    (step ? step.notes : []).forEach(function (note) { notes.appendChild(h('li', { text: note })); });
    if (t && t.problems.length) t.problems.forEach(function (p) { notes.appendChild(h('li', { 'class': 'status err', text: p })); });
    if (!step) return;
    highlight(step, i);
    renderMessages(i);
    renderRequest(step, i);
  }
  function go(i) {
    if (!S.timeline) return;
    S.step = i;
    S.follow = i >= S.timeline.steps.length - 1;
    render();
  }

  // ---- data ----------------------------------------------------------------------------------
  function showMeta() {
    var hd = S.timeline && S.timeline.header;
    $('meta').textContent = hd ? 'session ' + hd.id + ' · ' + hd.cwd + ' · model ' + hd.model + ' · ' + hd.createdAt : '';
    var steps = S.timeline ? S.timeline.steps : [];
    var last = steps[steps.length - 1];
    var ended = S.timeline && S.timeline.results.length && last && FINAL[last.state];
    $('live').hidden = !!ended;
  }
  function open(id) {
    S.id = id;
    if (S.source) S.source.close();
    S.source = new EventSource('/api/sessions/' + encodeURIComponent(id) + '/events');
    S.source.addEventListener('timeline', function (e) {
      var follow = S.follow || !S.timeline;
      S.timeline = JSON.parse(e.data);
      if (follow) S.step = S.timeline.steps.length - 1;
      if (!config.startAtEnd && !S.started) { S.step = 0; S.follow = false; }
      S.started = true;
      showMeta();
      render();
      document.body.setAttribute('data-loaded', 'true');
    });
  }
  function loadSessions() {
    fetch('/api/sessions').then(function (r) { return r.json(); }).then(function (list) {
      var select = $('sessions');
      select.textContent = '';
      if (!list.length) select.appendChild(h('option', { text: 'no sessions yet' }));
      list.forEach(function (x) {
        var label = x.updatedAt.slice(0, 16).replace('T', ' ') + ' · ' + (x.firstPrompt || '(no prompt)').slice(0, 50) + ' · ' + x.id.slice(0, 8);
        var option = h('option', { value: x.id, text: label });
        if (x.id === S.id) option.selected = true;
        select.appendChild(option);
      });
    });
  }

  $('first').onclick = function () { go(0); };
  $('prev').onclick = function () { go(S.step - 1); };
  $('next').onclick = function () { go(S.step + 1); };
  $('last').onclick = function () { go(S.timeline ? S.timeline.steps.length - 1 : 0); };
  $('scrub').oninput = function () { go(Number($('scrub').value)); };
  $('sessions').onchange = function () { location.search = '?session=' + encodeURIComponent($('sessions').value); };
  document.addEventListener('keydown', function (e) {
    var tag = e.target && e.target.tagName;
    if (tag === 'SELECT' || tag === 'INPUT') return;
    if (e.key === 'ArrowRight') { go(S.step + 1); e.preventDefault(); }
    if (e.key === 'ArrowLeft') { go(S.step - 1); e.preventDefault(); }
    if (e.key === 'Home') go(0);
    if (e.key === 'End') go(S.timeline ? S.timeline.steps.length - 1 : 0);
  });

  fetch('/api/machine').then(function (r) { return r.json(); }).then(function (g) {
    S.graph = g;
    drawDiagram(g);
    var id = new URLSearchParams(location.search).get('session') || config.defaultSession;
    if (id) open(id);
    else { $('messages').appendChild(h('div', { 'class': 'empty', text: 'No session recorded yet: run agentloop -p "..." first.' })); document.body.setAttribute('data-loaded', 'true'); }
    loadSessions();
    if (S.timeline) render();
  });
})();
`;

const BODY = String.raw`
<header>
  <div class="brand">agentloop<span>step-through viewer</span></div>
  <div id="meta"></div>
  <span id="live" hidden>● live</span>
  <select id="sessions" aria-label="session"></select>
</header>
<main>
  <section>
    <div class="card">
      <h2>The machine</h2>
      <svg id="diagram" role="img" aria-label="state diagram of the agent loop"></svg>
      <div class="legend">Blue: the state at this step; thick blue: the transition that led here. Dashed boxes are
      passed through by eventless transitions, never rested in (italic: a pure choice); dashed arrows go back round the loop.</div>
    </div>
    <div class="card never-sent">
      <h2>Loop state <span class="badge">never sent to the model</span></h2>
      <dl class="fields">
        <dt>state</dt><dd id="f-state" data-testid="state">—</dd>
        <dt>turnCount</dt><dd id="f-turn" data-testid="turnCount">—</dd>
        <dt>transitionReason</dt><dd id="f-reason" data-testid="transitionReason">—</dd>
        <dt>event</dt><dd id="f-event">—</dd>
        <dt>usage (this turn)</dt><dd id="f-usage" data-testid="usage">—</dd>
        <dt>usage (run total)</dt><dd id="f-total" data-testid="usageTotal">—</dd>
      </dl>
      <ul id="notes"></ul>
    </div>
  </section>
  <section>
    <div class="card controls">
      <button id="first" title="first step (Home)">« First</button>
      <button id="prev" data-testid="prev" title="previous step (←)">◀ Back</button>
      <span id="step-label" data-testid="step-label">—</span>
      <button id="next" data-testid="next" title="next step (→)">Next ▶</button>
      <button id="last" title="last step (End)">Last »</button>
      <input id="scrub" type="range" min="0" max="0" value="0" aria-label="step">
      <span class="hint">← → to step</span>
    </div>
    <div id="panes">
      <div class="card"><h2>messages <span id="msg-count" class="sub"></span></h2><div id="messages" class="scroll" data-testid="messages"></div></div>
      <div class="card"><h2>Request body sent to the model <span id="req-label" class="sub"></span></h2>
        <div class="scroll"><pre id="request" data-testid="request"></pre><div id="unsent" class="never-sent"></div></div>
      </div>
    </div>
  </section>
</main>`;

/** JSON for a `<script>` element: `<` escaped so the text cannot close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

export function viewerPage(config: { defaultSession: string | null; startAtEnd?: boolean }): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>agentloop · step-through viewer</title>
<style>${CSS}</style>
</head>
<body>
${BODY}
<script>window.AGENTLOOP = ${scriptJson(config)};</script>
<script>${SCRIPT}</script>
</body>
</html>`;
}
