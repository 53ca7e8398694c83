'use strict';
// Workline console: plain browser JavaScript talking to the gateway's public APIs (docs/console.md).
(() => {
  const $ = (id) => document.getElementById(id);
  const state = {
    workerToken: '',
    lineId: '',
    assignment: null,
    basic: '',
    adminToken: '',
    runs: [],
    timer: null,
    attemptsOf: null,
    // Tasks: the filter, the cursors of the pages walked so far (null = newest), the page shown, the task opened.
    taskFilter: { workstream: '', state: '' },
    taskCursors: [null],
    taskPage: [],
    taskNext: null,
    taskOpen: null,
  };

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
    try {
      json = text ? JSON.parse(text) : null;
    } catch {
      json = null;
    }
    if (!response.ok) {
      const detail = json && json.errors ? ` (${json.errors.map((e) => `${e.field}: ${e.message}`).join('; ')})` : '';
      throw new Error(`${response.status} ${(json && json.message) || text}${detail}`);
    }
    return { status: response.status, body: json };
  }

  const el = (tag, attrs, ...children) => elIn(null, tag, attrs, ...children);
  const SVG = 'http://www.w3.org/2000/svg';
  const svg = (tag, attrs, ...children) => elIn(SVG, tag, attrs, ...children);
  function elIn(namespace, tag, attrs, ...children) {
    const node = namespace ? document.createElementNS(namespace, tag) : document.createElement(tag);
    for (const [key, value] of Object.entries(attrs || {})) {
      if (key === 'text') node.textContent = value;
      else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value);
    }
    for (const child of children) node.append(child);
    return node;
  }

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
    $('fields').append(
      el(
        'div',
        { class: 'row field' },
        el('input', { class: 'field-key', placeholder: 'key', value: key || '' }),
        el('input', { class: 'field-value', placeholder: 'value', value: value || '' }),
      ),
    );
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
      for (const [key, value] of Object.entries(assignment.input || {}))
        list.append(el('dt', { text: key }), el('dd', {}, renderValue(value)));
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
      $('existing-tags').append(
        el('p', { text: tags.length ? `Existing tags: ${tags.map((t) => t.value ?? JSON.stringify(t)).join(', ')}` : 'No existing tags' }),
      );
      // The client's own items, given with the task (key: value).
      const items = assignment.metadata || [];
      if (items.length)
        $('existing-tags').append(el('p', { text: `Client notes: ${items.map((m) => `${m.key}: ${m.value}`).join('; ')}` }));
      $('fields').append(el('label', {}, 'Tags (comma separated, confidence 1) ', el('input', { id: 'tags' })));
      $('add-field').hidden = true;
    }
    (assignment.kind === 'unit' ? $('fields').querySelector('.field-key') : $('tags')).focus();
  }

  // What `next` takes for a kind; complete and flag send it too, so the next assignment comes in their answer.
  function nextBody(kind) {
    const body = { kind };
    if (kind === 'unit' && state.lineId) body.line_id = state.lineId;
    return body;
  }

  async function next(kind) {
    if (!state.workerToken) return say('Sign in first', true);
    try {
      const body = nextBody(kind);
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
    const tags = $('tags')
      .value.split(',')
      .map((t) => t.trim())
      .filter(Boolean);
    return { updated_tags: tags.map((value) => ({ value, confidence_score: 1 })) };
  }

  async function act(action, body) {
    const assignment = state.assignment;
    if (!assignment) return say('Take a unit or task first', true);
    try {
      const result = await call('POST', `/workforce/v1/assignments/${assignment.assignment_id}/${action}`, workerHeaders(), {
        ...body,
        next: nextBody(assignment.kind),
      });
      const following = result.body.next || null;
      renderAssignment(following);
      const done = `${assignment.assignment_id}: ${result.body.status || result.body.state}`;
      say(following ? `${done}. Leased ${following.assignment_id}.` : `${done}. No ${assignment.kind} waiting.`);
    } catch (error) {
      say(error.message, true);
    }
  }
  $('submit-form').addEventListener('submit', (event) => {
    event.preventDefault();
    let body;
    try {
      body = completionBody();
    } catch (error) {
      return say(`Invalid JSON: ${error.message}`, true);
    }
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

  const adminHeaders = () => ({ authorization: `Bearer ${state.adminToken}` });

  // Account credentials show the account's runs and deliveries; the admin token shows tasks and reports of
  // every workstream. Either or both.
  $('operator-signin').addEventListener('submit', (event) => {
    event.preventDefault();
    const username = $('op-username').value.trim();
    state.basic = username ? btoa(`${username}:${$('op-password').value}`) : '';
    state.adminToken = $('op-admin-token').value.trim();
    if (!state.basic && !state.adminToken) return say('Enter an account username and password, an admin token, or both', true);
    $('operator-panel').hidden = false;
    $('account-sections').hidden = !state.basic;
    $('admin-sections').hidden = !state.adminToken;
    if (state.adminToken && !$('report-from').value) {
      const today = new Date();
      $('report-to').value = isoDay(today);
      $('report-from').value = isoDay(new Date(today.getTime() - 6 * DAY_MS));
    }
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
    const bar = el('div', {
      class: 'progress',
      title: Object.entries(counts)
        .map(([k, v]) => `${k}: ${v}`)
        .join(', '),
    });
    for (const name of [...STATES, ...Object.keys(counts).filter((k) => !STATES.includes(k))]) {
      if (!counts[name]) continue;
      bar.append(
        el('span', {
          class: `bar bar-${name.toLowerCase()}`,
          style: `width:${(100 * counts[name]) / units.length}%`,
          text: `${name} ${counts[name]}`,
        }),
      );
    }
    return bar;
  }

  async function refreshRuns() {
    const rows = [];
    for (const id of state.runs) {
      try {
        const run = (await call('GET', `/v4/runs/${encodeURIComponent(id)}`, operatorHeaders())).body;
        const units = run.units || [];
        rows.push(
          el(
            'tr',
            { 'data-run': id },
            el('td', { text: id }),
            el('td', { class: 'run-status', text: run.status }),
            el('td', { text: String(units.length) }),
            el('td', {}, progressBar(units)),
          ),
        );
      } catch (error) {
        rows.push(
          el(
            'tr',
            { 'data-run': id },
            el('td', { text: id }),
            el('td', { class: 'run-status error', text: error.message }),
            el('td'),
            el('td'),
          ),
        );
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
    $('deliveries').tBodies[0].replaceChildren(
      ...list.map((d) =>
        el(
          'tr',
          { 'data-delivery': d.id },
          el('td', { text: d.id }),
          el('td', { text: `${d.event_type}${d.run_id ? ` (run ${d.run_id})` : ''}` }),
          el('td', { class: 'delivery-status', text: d.status }),
          el('td', { class: 'delivery-attempts', text: String(d.attempt_count) }),
          el('td', { text: d.last_status_code != null ? `HTTP ${d.last_status_code}` : d.last_error || '' }),
          el(
            'td',
            {},
            el('button', { type: 'button', class: 'show-attempts', onclick: () => showAttempts(d.id), text: 'Attempts' }),
            el('button', { type: 'button', class: 'redeliver', onclick: () => redeliver(d.id), text: 'Redeliver' }),
          ),
        ),
      ),
    );
    if (state.attemptsOf) await showAttempts(state.attemptsOf);
  }

  async function showAttempts(id) {
    state.attemptsOf = id;
    const delivery = (await call('GET', `/v1/deliveries/${encodeURIComponent(id)}`, operatorHeaders())).body;
    $('attempts-title').textContent = `Attempts of ${delivery.id} (${delivery.url})`;
    $('attempts').hidden = false;
    $('attempts').tBodies[0].replaceChildren(
      ...delivery.attempts.map((a) =>
        el(
          'tr',
          {},
          el('td', { text: String(a.number) }),
          el('td', { text: a.attempted_at }),
          el('td', { class: 'attempt-status', text: a.status_code != null ? `HTTP ${a.status_code}` : '' }),
          el('td', { text: `${a.duration_ms} ms` }),
          el('td', { text: a.error || a.response_excerpt || '' }),
        ),
      ),
    );
  }

  let refreshing = false;
  async function refresh() {
    if (refreshing || (!state.basic && !state.adminToken)) return;
    refreshing = true;
    try {
      if (state.basic) {
        await refreshRuns();
        await refreshDeliveries();
      }
      if (state.adminToken) await refreshTasks();
      $('operator-panel').dataset.refreshedAt = new Date().toISOString();
    } catch (error) {
      say(error.message, true);
    } finally {
      refreshing = false;
    }
  }

  // Tasks (admin token): GET /admin/v1/tasks, newest first, one page of 20 at a time.
  const TASK_PAGE = 20;
  const shortTime = (iso) => iso.replace('T', ' ').replace(/\.\d+Z$/, 'Z');

  async function refreshTasks() {
    const query = new URLSearchParams({ limit: String(TASK_PAGE) });
    if (state.taskFilter.workstream) query.set('workstream_id', state.taskFilter.workstream);
    if (state.taskFilter.state) query.set('state', state.taskFilter.state);
    const cursor = state.taskCursors[state.taskCursors.length - 1];
    if (cursor) query.set('cursor', cursor);
    const page = (await call('GET', `/admin/v1/tasks?${query}`, adminHeaders())).body;
    state.taskPage = page.tasks;
    state.taskNext = page.next_cursor;
    $('tasks').tBodies[0].replaceChildren(
      ...page.tasks.map((t) =>
        el(
          'tr',
          { 'data-task': t.task_id, class: t.task_id === state.taskOpen ? 'selected' : '' },
          el('td', {}, el('button', { type: 'button', class: 'link open-task', onclick: () => openTask(t.task_id), text: t.task_id })),
          el('td', { class: `task-state state-${t.state.toLowerCase()}`, text: t.state }),
          el('td', { text: t.media_key }),
          el('td', { text: t.configuration_id }),
          el('td', { text: shortTime(t.created_at) }),
          el('td', { text: shortTime(t.updated_at) }),
        ),
      ),
    );
    if (!page.tasks.length) $('tasks').tBodies[0].append(el('tr', {}, el('td', { colspan: '6', class: 'empty', text: 'No tasks match.' })));
    $('tasks-page').textContent = `page ${state.taskCursors.length}${page.next_cursor ? '' : ' (oldest)'}`;
    $('tasks-next').disabled = !page.next_cursor;
    $('tasks-first').disabled = state.taskCursors.length === 1;
    renderTaskDetail();
  }

  function openTask(id) {
    state.taskOpen = id;
    for (const row of $('tasks').tBodies[0].rows) row.classList.toggle('selected', row.dataset.task === id);
    renderTaskDetail();
  }

  const tagList = (tags) => (tags.length ? tags.map((t) => `${t.value} (${t.confidence_score})`).join(', ') : 'none');

  function renderTaskDetail() {
    const task = state.taskPage.find((t) => t.task_id === state.taskOpen);
    const box = $('task-detail');
    box.hidden = !task;
    if (!task) return box.replaceChildren();
    const rows = [
      ['State', task.state],
      ['Workstream', task.workstream_id],
      ['Account', task.account_id],
      ['Configuration', task.configuration_id],
      ['Media key', task.media_key],
      ['Bucket', task.bucket_id || 'uploaded media'],
      ['Created', task.created_at],
      ['Updated', task.updated_at],
    ];
    if (task.result) {
      rows.push(['Result tags', tagList(task.result.updated_tags)], ['Existing tags', tagList(task.result.existing_tags)]);
      if (task.result.metadata.length) rows.push(['Metadata', JSON.stringify(task.result.metadata)]);
    }
    if (task.error) rows.push(['Error', task.error.message]);
    const list = el('dl', { id: 'task-fields' });
    for (const [name, value] of rows)
      list.append(el('dt', { text: name }), el('dd', { 'data-field': name.toLowerCase().replace(/ /g, '-'), text: value }));
    box.replaceChildren(el('h3', { text: `Task ${task.task_id}` }), list);
  }

  $('task-filter').addEventListener('submit', (event) => {
    event.preventDefault();
    state.taskFilter = { workstream: $('task-workstream').value.trim(), state: $('task-state').value };
    state.taskCursors = [null];
    refresh();
  });
  $('tasks-next').addEventListener('click', () => {
    if (!state.taskNext) return;
    state.taskCursors.push(state.taskNext);
    refresh();
  });
  $('tasks-first').addEventListener('click', () => {
    state.taskCursors = [null];
    refresh();
  });

  // Reports (admin token): the workstream's quality and throughput per UTC day, drawn as inline SVG.
  const DAY_MS = 24 * 3600 * 1000;
  const isoDay = (date) => date.toISOString().slice(0, 10);

  /** Round tick steps (1, 2, 5 × 10^n) from 0 to at least max. */
  function ticks(max) {
    if (!(max > 0)) return [0, 1];
    const rough = max / 4;
    const magnitude = 10 ** Math.floor(Math.log10(rough));
    const step = [1, 2, 5, 10].map((m) => m * magnitude).find((s) => s >= rough);
    const list = [];
    for (let value = 0; value < max + step / 2; value += step) list.push(Number(value.toFixed(10)));
    if (list[list.length - 1] < max) list.push(list[list.length - 1] + step);
    return list;
  }

  const formatNumber = (value) => (Number.isInteger(value) ? String(value) : value.toFixed(2));

  /**
   * A bar chart: one bar per point ({key, value, detail}), a y axis with round ticks (or the given ones),
   * the keys under the bars, the values over them, and the axis titles. Empty points: a message instead.
   */
  function barChart({ id, title, points, yTitle, xTitle, yTicks, empty }) {
    const figure = el('figure', { id, 'data-bars': String(points.length) }, el('figcaption', { text: title }));
    if (!points.length) {
      figure.append(el('p', { class: 'empty', text: empty }));
      return figure;
    }
    const scale = yTicks || ticks(Math.max(...points.map((p) => p.value)));
    const top = scale[scale.length - 1] || 1;
    const width = Math.max(360, 70 + points.length * 56),
      height = 240;
    const left = 56,
      right = 12,
      topPad = 20,
      bottom = 48;
    const plotW = width - left - right,
      plotH = height - topPad - bottom;
    const y = (value) => topPad + plotH - (value / top) * plotH;
    const slot = plotW / points.length,
      barW = Math.min(40, slot * 0.7);
    const chart = svg('svg', {
      viewBox: `0 0 ${width} ${height}`,
      width: String(width),
      height: String(height),
      role: 'img',
      'aria-label': title,
    });
    for (const tick of scale) {
      chart.append(
        svg('line', { class: 'grid', x1: String(left), x2: String(width - right), y1: String(y(tick)), y2: String(y(tick)) }),
        svg('text', { class: 'y-label', x: String(left - 6), y: String(y(tick) + 4), 'text-anchor': 'end', text: formatNumber(tick) }),
      );
    }
    points.forEach((point, i) => {
      const x = left + slot * i + (slot - barW) / 2;
      chart.append(
        svg(
          'rect',
          {
            class: 'bar',
            x: String(x),
            y: String(y(point.value)),
            width: String(barW),
            height: String(Math.max(0, topPad + plotH - y(point.value))),
            'data-key': point.key,
            'data-value': String(point.value),
          },
          svg('title', { text: `${point.key}: ${point.detail}` }),
        ),
        svg('text', {
          class: 'value-label',
          x: String(x + barW / 2),
          y: String(y(point.value) - 4),
          'text-anchor': 'middle',
          text: formatNumber(point.value),
        }),
        svg('text', {
          class: 'x-label',
          x: String(x + barW / 2),
          y: String(topPad + plotH + 16),
          'text-anchor': 'middle',
          text: point.key.slice(5),
        }),
      );
    });
    chart.append(
      svg('line', { class: 'axis', x1: String(left), x2: String(left), y1: String(topPad), y2: String(topPad + plotH) }),
      svg('line', { class: 'axis', x1: String(left), x2: String(width - right), y1: String(topPad + plotH), y2: String(topPad + plotH) }),
      svg('text', { class: 'axis-title', x: String(left + plotW / 2), y: String(height - 8), 'text-anchor': 'middle', text: xTitle }),
      svg('text', {
        class: 'axis-title',
        x: '14',
        y: String(topPad + plotH / 2),
        'text-anchor': 'middle',
        transform: `rotate(-90 14 ${topPad + plotH / 2})`,
        text: yTitle,
      }),
    );
    figure.append(chart);
    return figure;
  }

  async function showReports(event) {
    event.preventDefault();
    const workstream = $('report-workstream').value.trim();
    const from = $('report-from').value;
    const toInclusive = $('report-to').value;
    if (!workstream || !from || !toInclusive) return say('Enter a workstream id and both dates', true);
    // The API's `to` is exclusive: the day after the last day shown.
    const to = isoDay(new Date(Date.parse(`${toInclusive}T00:00:00Z`) + DAY_MS));
    const query = new URLSearchParams({ from, to, group_by: 'day' });
    const base = `/admin/v1/workstreams/${encodeURIComponent(workstream)}/reports`;
    try {
      const [quality, throughput] = await Promise.all([
        call('GET', `${base}/quality?${query}`, adminHeaders()),
        call('GET', `${base}/throughput?${query}`, adminHeaders()),
      ]);
      const range = `${from} to ${toInclusive}`;
      $('quality-chart').replaceChildren(
        barChart({
          id: 'quality',
          title: `Quality: mean review score per day, ${range}`,
          yTitle: 'mean score',
          xTitle: 'day (UTC)',
          yTicks: [0, 0.25, 0.5, 0.75, 1],
          points: quality.body.groups.map((g) => ({
            key: g.key,
            value: g.mean_score,
            detail: `mean ${formatNumber(g.mean_score)} of ${g.count} reviews (min ${g.min_score}, max ${g.max_score})`,
          })),
          empty: `No quality records from ${range}.`,
        }),
      );
      $('throughput-chart').replaceChildren(
        barChart({
          id: 'throughput',
          title: `Throughput: tasks completed per day, ${range}`,
          yTitle: 'tasks',
          xTitle: 'day (UTC)',
          points: throughput.body.groups.map((g) => ({
            key: g.key,
            value: g.tasks,
            detail:
              `${g.tasks} tasks in ${g.records} ` +
              `record${g.records === 1 ? '' : 's'}${g.tasks_per_hour != null ? `, ${formatNumber(g.tasks_per_hour)} tasks/hour` : ''}`,
          })),
          empty: `No throughput records from ${range}.`,
        }),
      );
      say(`Reports of workstream ${workstream}, ${range}.`);
    } catch (error) {
      say(error.message, true);
    }
  }
  $('report-form').addEventListener('submit', showReports);
})();
