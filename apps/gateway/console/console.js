'use strict';
// Workline console: plain browser JavaScript talking to the gateway's public APIs (docs/console.md).
(() => {
  const $ = (id) => document.getElementById(id);
  const state = { workerToken: '', lineId: '', assignment: null, basic: '', runs: [], timer: null, attemptsOf: null };

  const say = (text, isError) => {
    $('status').textContent = text;
    $('status').className = isError ? 'error' : '';
  };

  async function call(method, path, headers, body) {
    const init = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.headers['content-type'] = 'application/json';
      init.body = JSON.stringify(body);
    }
    const response = await fetch(path, init);
    const text = await response.text();
    let json = null;
    try { json = text ? JSON.parse(text) : null; } catch { json = null; }
    if (!response.ok) {
      const detail = json && json.errors ? ` (${json.errors.map((e) => `${e.field}: ${e.message}`).join('; ')})` : '';
      throw new Error(`${response.status} ${(json && json.message) || text}${detail}`);
    }
    return { status: response.status, body: json };
  }

  const el = (tag, attrs, ...children) => {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  };

  // Tabs
  const show = (view) => {
    $('worker-view').hidden = view !== 'worker';
    $('operator-view').hidden = view !== 'operator';
    $('tab-worker').classList.toggle('active', view === 'worker');
    $('tab-operator').classList.toggle('active', view === 'operator');
  };
  $('tab-worker').addEventListener('click', () => show('worker'));
  $('tab-operator').addEventListener('click', () => show('operator'));

  // Worker view
  const workerHeaders = () => ({ authorization: `Bearer ${state.workerToken}` });

  $('worker-signin').addEventListener('submit', (event) => {
    event.preventDefault();
    state.workerToken = $('worker-token').value.trim();
    state.lineId = $('worker-line').value.trim();
    $('worker-panel').hidden = false;
    say('Signed in. Take the next unit (n) or task (t).');
  });

  function addField(key, value) {
    $('fields').append(el('div', { class: 'row field' },
      el('input', { class: 'field-key', placeholder: 'key', value: key || '' }),
      el('input', { class: 'field-value', placeholder: 'value', value: value || '' })));
  }
  $('add-field').addEventListener('click', () => addField());

  function renderValue(value) {
    if (value !== null && typeof value === 'object') return el('pre', { text: JSON.stringify(value, null, 2) });
    return document.createTextNode(String(value));
  }

  function renderAssignment(assignment) {
    state.assignment = assignment;
    $('unit-input').replaceChildren();
    $('task-media').replaceChildren();
    $('existing-tags').replaceChildren();
    $('fields').replaceChildren();
    $('output-json').value = '';
    $('flag-reason').value = '';
    $('work').hidden = !assignment;
    $('assignment-id').textContent = assignment ? assignment.assignment_id : '';
    if (!assignment) return;
    if (assignment.kind === 'unit') {
      const list = el('dl', { id: 'input-fields' });
      for (const [key, value] of Object.entries(assignment.input || {})) list.append(el('dt', { text: key }), el('dd', {}, renderValue(value)));
      $('unit-input').append(el('h3', { text: `Unit of run ${assignment.run_id}` }), list);
      addField();
      $('add-field').hidden = false;
    } else {
      const type = assignment.media_type || '';
      const media = type.startsWith('video/')
        ? el('video', { id: 'media', src: assignment.media_url, controls: '' })
        : type === 'application/pdf'
          ? el('embed', { id: 'media', src: assignment.media_url, type })
          : el('img', { id: 'media', src: assignment.media_url, alt: `media of task ${assignment.task_id}` });
      $('task-media').append(el('h3', { text: `Task ${assignment.task_id}` }), media);
      const tags = assignment.existing_tags || [];
      $('existing-tags').append(el('p', { text: tags.length ? `Existing tags: ${tags.map((t) => t.value ?? JSON.stringify(t)).join(', ')}` : 'No existing tags' }));
      $('fields').append(el('label', {}, 'Tags (comma separated, confidence 1) ', el('input', { id: 'tags' })));
      $('add-field').hidden = true;
    }
    (assignment.kind === 'unit' ? $('fields').querySelector('.field-key') : $('tags')).focus();
  }

  async function next(kind) {
    if (!state.workerToken) return say('Sign in first', true);
    try {
      const body = { kind };
      if (kind === 'unit' && state.lineId) body.line_id = state.lineId;
      const result = await call('POST', '/workforce/v1/assignments/next', workerHeaders(), body);
      if (result.status === 204) {
        renderAssignment(null);
        return say(`No ${kind} waiting.`);
      }
      renderAssignment(result.body);
      say(`Leased ${result.body.assignment_id}.`);
    } catch (error) {
      say(error.message, true);
    }
  }
  $('next-unit').addEventListener('click', () => next('unit'));
  $('next-task').addEventListener('click', () => next('task'));

  function completionBody() {
    const json = $('output-json').value.trim();
    const assignment = state.assignment;
    if (assignment.kind === 'unit') {
      if (json) return { output: JSON.parse(json) };
      const output = {};
      for (const row of $('fields').querySelectorAll('.field')) {
        const key = row.querySelector('.field-key').value.trim();
        if (key) output[key] = row.querySelector('.field-value').value;
      }
      return { output };
    }
    if (json) return JSON.parse(json);
    const tags = $('tags').value.split(',').map((t) => t.trim()).filter(Boolean);
    return { updated_tags: tags.map((value) => ({ value, confidence_score: 1 })) };
  }

  async function act(action, body) {
    const assignment = state.assignment;
    if (!assignment) return say('Take a unit or task first', true);
    try {
      const result = await call('POST', `/workforce/v1/assignments/${assignment.assignment_id}/${action}`, workerHeaders(), body);
      renderAssignment(null);
      say(`${assignment.assignment_id}: ${result.body.status || result.body.state}`);
    } catch (error) {
      say(error.message, true);
    }
  }
  $('submit-form').addEventListener('submit', (event) => {
    event.preventDefault();
    let body;
    try { body = completionBody(); } catch (error) { return say(`Invalid JSON: ${error.message}`, true); }
    act('complete', body);
  });
  $('flag-form').addEventListener('submit', (event) => {
    event.preventDefault();
    act('flag', { reason: $('flag-reason').value });
  });

  document.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' && (event.ctrlKey || event.metaKey) && state.assignment) {
      event.preventDefault();
      return $('submit-form').requestSubmit();
    }
    const typing = ['INPUT', 'TEXTAREA'].includes(document.activeElement && document.activeElement.tagName);
    if (typing || event.ctrlKey || event.metaKey || event.altKey || $('worker-view').hidden || !state.workerToken) return;
    if (event.key === 'n') next('unit');
    else if (event.key === 't') next('task');
    else if (event.key === 'f' && state.assignment) {
      event.preventDefault();
      $('flag-reason').focus();
    }
  });

  // Operator view
  const operatorHeaders = () => ({ authorization: `Basic ${state.basic}` });

  $('operator-signin').addEventListener('submit', (event) => {
    event.preventDefault();
    state.basic = btoa(`${$('op-username').value.trim()}:${$('op-password').value}`);
    $('operator-panel').hidden = false;
    refresh();
    if (!state.timer) state.timer = setInterval(refresh, 2000);
  });

  $('watch-run').addEventListener('submit', (event) => {
    event.preventDefault();
    const id = $('run-id').value.trim();
    if (id && !state.runs.includes(id)) state.runs.push(id);
    $('run-id').value = '';
    refresh();
  });

  const STATES = ['Completed', 'Flagged', 'Aborted', 'Processing'];

  function progressBar(units) {
    const counts = {};
    for (const unit of units) {
      const status = (unit.meta && unit.meta.status) || unit.status || 'Unknown';
      counts[status] = (counts[status] || 0) + 1;
    }
    const bar = el('div', { class: 'progress', title: Object.entries(counts).map(([k, v]) => `${k}: ${v}`).join(', ') });
    for (const name of [...STATES, ...Object.keys(counts).filter((k) => !STATES.includes(k))]) {
      if (!counts[name]) continue;
      bar.append(el('span', { class: `bar bar-${name.toLowerCase()}`, style: `width:${(100 * counts[name]) / units.length}%`, text: `${name} ${counts[name]}` }));
    }
    return bar;
  }

  async function refreshRuns() {
    const rows = [];
    for (const id of state.runs) {
      try {
        const run = (await call('GET', `/v4/runs/${encodeURIComponent(id)}`, operatorHeaders())).body;
        const units = run.units || [];
        rows.push(el('tr', { 'data-run': id }, el('td', { text: id }), el('td', { class: 'run-status', text: run.status }), el('td', { text: String(units.length) }), el('td', {}, progressBar(units))));
      } catch (error) {
        rows.push(el('tr', { 'data-run': id }, el('td', { text: id }), el('td', { class: 'run-status error', text: error.message }), el('td'), el('td')));
      }
    }
    $('runs').tBodies[0].replaceChildren(...rows);
  }

  async function redeliver(id) {
    try {
      await call('POST', `/v1/deliveries/${encodeURIComponent(id)}/redeliver`, operatorHeaders());
      say(`Redelivery of ${id} queued.`);
      refresh();
    } catch (error) {
      say(error.message, true);
    }
  }

  async function refreshDeliveries() {
    const list = (await call('GET', '/v1/deliveries?limit=50', operatorHeaders())).body.deliveries;
    $('deliveries').tBodies[0].replaceChildren(...list.map((d) => el('tr', { 'data-delivery': d.id },
      el('td', { text: d.id }),
      el('td', { text: `${d.event_type}${d.run_id ? ` (run ${d.run_id})` : ''}` }),
      el('td', { class: 'delivery-status', text: d.status }),
      el('td', { class: 'delivery-attempts', text: String(d.attempt_count) }),
      el('td', { text: d.last_status_code != null ? `HTTP ${d.last_status_code}` : (d.last_error || '') }),
      el('td', {},
        el('button', { type: 'button', class: 'show-attempts', onclick: () => showAttempts(d.id), text: 'Attempts' }),
        el('button', { type: 'button', class: 'redeliver', onclick: () => redeliver(d.id), text: 'Redeliver' })))));
    if (state.attemptsOf) await showAttempts(state.attemptsOf);
  }

  async function showAttempts(id) {
    state.attemptsOf = id;
    const delivery = (await call('GET', `/v1/deliveries/${encodeURIComponent(id)}`, operatorHeaders())).body;
    $('attempts-title').textContent = `Attempts of ${delivery.id} (${delivery.url})`;
    $('attempts').hidden = false;
    $('attempts').tBodies[0].replaceChildren(...delivery.attempts.map((a) => el('tr', {},
      el('td', { text: String(a.number) }),
      el('td', { text: a.attempted_at }),
      el('td', { class: 'attempt-status', text: a.status_code != null ? `HTTP ${a.status_code}` : '' }),
      el('td', { text: `${a.duration_ms} ms` }),
      el('td', { text: a.error || a.response_excerpt || '' }))));
  }

  let refreshing = false;
  async function refresh() {
    if (refreshing || !state.basic) return;
    refreshing = true;
    try {
      await refreshRuns();
      await refreshDeliveries();
      $('operator-panel').dataset.refreshedAt = new Date().toISOString();
    } catch (error) {
      say(error.message, true);
    } finally {
      refreshing = false;
    }
  }
})();
