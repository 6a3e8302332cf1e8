// lunar session export: the tree in the sidebar and navigation. Every
// entry's article is already in the page, in tree order (a parent before
// its children), so the path to any entry is shown by unhiding its
// articles: no markup is built from data here. The tree is a virtual
// list: only the rows in view exist, so a session of any size stays quick.
(function () {
  'use strict';
  var doc = document;
  var root = doc.documentElement;
  root.classList.add('js');

  var data = JSON.parse(doc.getElementById('tree-data').textContent);
  var ids = data.ids, parent = data.parent, kind = data.kind, text = data.text;
  var labels = data.labels || {}, cut = data.cut || {}, leaf = data.leaf;
  var n = ids.length;

  var conv = doc.getElementById('conv');
  var els = new Array(n);
  var arts = conv.children;
  for (var a = 0; a < arts.length; a++) {
    els[+arts[a].getAttribute('data-i')] = arts[a];
  }
  var byId = new Map();
  for (var i = 0; i < n; i++) {
    if (!byId.has(ids[i])) byId.set(ids[i], i);
  }
  var childCount = new Int32Array(n);
  for (i = 0; i < n; i++) if (parent[i] >= 0) childCount[parent[i]]++;

  var onPath = new Uint8Array(n);
  var shown = pathTo(leaf);
  shown.forEach(function (k) { onPath[k] = 1; });
  var current = leaf;
  // Kinds whose entries put messages into the model's context.
  var contextKinds = { user: 1, assistant: 1, tool: 1, error: 1, bash: 1, custom: 1, branch: 1 };

  function pathTo(k) {
    var p = [];
    for (var j = k; j >= 0 && p.length <= n; j = parent[j]) p.push(j);
    return p.reverse();
  }

  // --- the conversation -------------------------------------------------

  var where = doc.getElementById('where');
  var leafBtn = doc.getElementById('to-leaf');

  // compactedFrom is the index in path before which entries were
  // compacted away: the last compaction on the path replaced what came
  // before its first kept entry. 0 when nothing was.
  function compactedFrom(path) {
    for (var x = path.length - 1; x >= 0; x--) {
      var c = cut[path[x]];
      if (c !== undefined) {
        var from = path.indexOf(c);
        return from < 0 || from > x ? x : from;
      }
    }
    return 0;
  }
  var cutFrom = compactedFrom(shown);
  var target = -1;

  // show makes the conversation the path from the root to entry k. Only
  // the articles past the part the old and new paths share change.
  function show(k, scroll) {
    var path = pathTo(k), x;
    var common = 0;
    while (common < shown.length && common < path.length && shown[common] === path[common]) common++;
    for (x = common; x < shown.length; x++) {
      els[shown[x]].hidden = true;
      onPath[shown[x]] = 0;
      if (x < cutFrom) els[shown[x]].classList.remove('compacted');
    }
    for (x = common; x < path.length; x++) {
      els[path[x]].hidden = false;
      onPath[path[x]] = 1;
    }
    var from = compactedFrom(path);
    for (x = 0; x < Math.max(from, Math.min(cutFrom, common)); x++) {
      els[path[x]].classList.toggle('compacted', x < from && contextKinds[kind[path[x]]] === 1);
    }
    cutFrom = from;
    shown = path;
    current = k;
    status();
    drawRows();
    revealRow(k);
    if (scroll && k >= 0) mark(k, true);
  }

  // mark outlines entry k (the one a link or the tree chose).
  function mark(k, scroll) {
    if (target >= 0) els[target].classList.remove('target');
    target = k;
    els[k].classList.add('target');
    if (scroll) els[k].scrollIntoView({ block: 'start' });
  }

  function status() {
    var atLeaf = current === leaf;
    leafBtn.disabled = atLeaf;
    if (current < 0) {
      where.textContent = 'Empty session';
    } else if (atLeaf) {
      where.textContent = 'Leaf · ' + shown.length + ' entries';
    } else {
      where.textContent = 'Path to ' + ids[current] + ' · ' + shown.length + ' entries (not the leaf)';
    }
  }

  function setHash(k) {
    try {
      history.replaceState(null, '', k >= 0 ? '#' + encodeURIComponent(ids[k]) : location.pathname + location.search);
    } catch (e) { /* some viewers refuse history on file: URLs */ }
  }

  // go selects entry k: its path is shown and it is scrolled to.
  function go(k) {
    show(k, true);
    setHash(k);
  }

  function toLeaf() {
    show(leaf, false);
    setHash(-1);
    if (leaf >= 0) els[leaf].scrollIntoView({ block: 'end' });
  }

  // A link to an entry (#id): scroll to it when it is on the shown path,
  // else show its path.
  function follow(id, scroll) {
    var k = byId.get(id);
    if (k === undefined) return false;
    if (onPath[k]) {
      mark(k, scroll);
      revealRow(k);
      setHash(k);
    } else {
      go(k);
    }
    return true;
  }

  // --- the tree ---------------------------------------------------------

  var treeBox = doc.getElementById('tree');
  var inner = doc.getElementById('tree-inner');
  var search = doc.getElementById('search');
  var treeStatus = doc.getElementById('tree-status');
  var ROW = 22;
  var rows = [], prefix = [], rowOf = new Int32Array(n).fill(-1);
  var filter = 'all', query = '';
  var fullText = null; // lower-cased article text, built on the first search

  var messageKinds = { user: 1, assistant: 1, tool: 1, error: 1, bash: 1, custom: 1, compaction: 1, branch: 1 };
  var marks = { user: 'U', assistant: 'A', tool: 'T', error: '!', bash: '$', custom: 'H', compaction: 'C', branch: 'B', setting: '·', state: '·', other: '?' };

  function visible(k) {
    if (filter === 'messages' && !messageKinds[kind[k]]) return false;
    if (filter === 'user' && kind[k] !== 'user') return false;
    if (filter === 'labelled' && !labels[k]) return false;
    if (query) {
      if (text[k].toLowerCase().indexOf(query) >= 0) return true;
      if (labels[k] && labels[k].toLowerCase().indexOf(query) >= 0) return true;
      if (!fullText) fullText = new Array(n);
      if (fullText[k] === undefined) fullText[k] = els[k] ? els[k].textContent.toLowerCase() : '';
      return fullText[k].indexOf(query) >= 0;
    }
    return true;
  }

  // onLeaf marks the leaf's path, the trunk of the tree's layout.
  var onLeaf = new Uint8Array(n);
  pathTo(leaf).forEach(function (k) { onLeaf[k] = 1; });

  // build lays out the rows of the entries the filter keeps, each under
  // its nearest kept ancestor. A fork's children that leave the trunk (the
  // child on the leaf's path, else the newest) are drawn first, indented
  // with ├─; the trunk goes on in its parent's column. So the leaf's path
  // is one straight column, and a tree indents only as deep as branches
  // nest, not once a fork.
  function build() {
    var vis = new Uint8Array(n), vp = new Int32Array(n);
    var kids = new Array(n + 1);
    var k, count = 0;
    for (k = 0; k < n; k++) {
      vis[k] = visible(k) ? 1 : 0;
      var p = parent[k];
      vp[k] = p < 0 ? -1 : (vis[p] ? p : vp[p]);
      if (vis[k]) {
        var slot = vp[k] < 0 ? n : vp[k];
        (kids[slot] || (kids[slot] = [])).push(k);
        count++;
      }
    }
    rows = [];
    prefix = [];
    rowOf.fill(-1);
    var stack = [];
    var push = function (list, guides) {
      if (!list) return;
      var trunk = list.length - 1, j;
      for (j = 0; j < list.length; j++) {
        if (onLeaf[list[j]]) { trunk = j; break; }
      }
      stack.push([list[trunk], guides, guides]); // popped last: drawn after the side branches
      for (j = list.length - 1; j >= 0; j--) {
        if (j !== trunk) stack.push([list[j], guides + '├─ ', guides + '│  ']);
      }
    };
    push(kids[n], '');
    while (stack.length) {
      var it = stack.pop();
      rowOf[it[0]] = rows.length;
      rows.push(it[0]);
      prefix.push(it[1].length > 24 ? '…' + it[1].slice(-23) : it[1]);
      push(kids[it[0]], it[2]);
    }
    inner.style.height = rows.length * ROW + 'px';
    treeStatus.textContent = count === n ? n + ' entries' : count + ' of ' + n + ' entries';
    drawRows();
  }

  var drawPending = false;
  function drawRowsSoon() {
    if (drawPending) return;
    drawPending = true;
    requestAnimationFrame(function () { drawPending = false; drawRows(); });
  }

  function drawRows() {
    if (!root.classList.contains('side')) return;
    var top = treeBox.scrollTop, h = treeBox.clientHeight || 600;
    var first = Math.max(0, Math.floor(top / ROW) - 8);
    var last = Math.min(rows.length, Math.ceil((top + h) / ROW) + 8);
    var frag = doc.createDocumentFragment();
    for (var r = first; r < last; r++) {
      var k = rows[r];
      var row = doc.createElement('div');
      row.className = 'row k-' + kind[k] + (onPath[k] ? ' on' : '') + (k === current ? ' sel' : '');
      row.style.top = r * ROW + 'px';
      row.setAttribute('data-i', k);
      row.setAttribute('role', 'option');
      row.setAttribute('aria-selected', k === current ? 'true' : 'false');
      row.title = ids[k] + (labels[k] ? ' · ' + labels[k] : '') + '\n' + text[k];
      var g = doc.createElement('span');
      g.className = 'guide';
      g.textContent = prefix[r];
      var m = doc.createElement('span');
      m.className = 'mark';
      m.textContent = (marks[kind[k]] || '?') + ' ';
      var t = doc.createElement('span');
      t.className = 'txt';
      t.textContent = text[k] || '(empty)';
      row.appendChild(g);
      row.appendChild(m);
      if (k === leaf) {
        var lf = doc.createElement('span');
        lf.className = 'leafmark';
        lf.textContent = 'leaf';
        row.appendChild(lf);
      }
      if (labels[k]) {
        var l = doc.createElement('span');
        l.className = 'lbl';
        l.textContent = labels[k];
        row.appendChild(l);
      }
      row.appendChild(t);
      frag.appendChild(row);
    }
    inner.replaceChildren(frag);
  }

  // revealRow scrolls the tree so that entry k's row is in view.
  function revealRow(k) {
    if (k < 0 || rowOf[k] < 0 || !root.classList.contains('side')) return;
    var y = rowOf[k] * ROW, h = treeBox.clientHeight;
    if (y < treeBox.scrollTop || y + ROW > treeBox.scrollTop + h) {
      treeBox.scrollTop = Math.max(0, y - h / 3);
    }
    drawRows();
  }

  treeBox.addEventListener('scroll', drawRowsSoon, { passive: true });
  treeBox.addEventListener('click', function (ev) {
    var row = ev.target.closest('.row');
    if (!row) return;
    go(+row.getAttribute('data-i'));
    if (narrow()) setSide(false);
  });
  treeBox.addEventListener('keydown', function (ev) {
    var r = rowOf[current] >= 0 ? rowOf[current] : -1;
    var next = -1;
    if (ev.key === 'ArrowDown') next = Math.min(rows.length - 1, r + 1);
    else if (ev.key === 'ArrowUp') next = Math.max(0, r - 1);
    else if (ev.key === 'Home') next = 0;
    else if (ev.key === 'End') next = rows.length - 1;
    else if (ev.key === 'PageDown') next = Math.min(rows.length - 1, r + Math.floor(treeBox.clientHeight / ROW));
    else if (ev.key === 'PageUp') next = Math.max(0, r - Math.floor(treeBox.clientHeight / ROW));
    else return;
    ev.preventDefault();
    if (next >= 0 && rows.length) go(rows[next]);
  });

  var searchTimer = 0;
  search.addEventListener('input', function () {
    clearTimeout(searchTimer);
    searchTimer = setTimeout(function () {
      query = search.value.trim().toLowerCase();
      build();
      revealRow(current);
    }, 120);
  });
  search.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') {
      search.value = '';
      query = '';
      build();
      revealRow(current);
      treeBox.focus();
    } else if (ev.key === 'Enter' || ev.key === 'ArrowDown') {
      ev.preventDefault();
      treeBox.focus();
    }
  });
  doc.querySelectorAll('.filters button').forEach(function (b) {
    b.addEventListener('click', function () {
      filter = b.getAttribute('data-filter');
      doc.querySelectorAll('.filters button').forEach(function (o) {
        o.setAttribute('aria-pressed', o === b ? 'true' : 'false');
      });
      build();
      revealRow(current);
    });
  });

  // --- sidebar, toolbar, keys --------------------------------------------

  var wide = window.matchMedia('(min-width: 900px)');
  function narrow() { return !wide.matches; }
  function setSide(open) {
    root.classList.toggle('side', open);
    doc.getElementById('side-toggle').setAttribute('aria-expanded', open ? 'true' : 'false');
    if (open) revealRow(current);
  }
  doc.getElementById('side-toggle').addEventListener('click', function () {
    setSide(!root.classList.contains('side'));
  });
  doc.getElementById('side-close').addEventListener('click', function () { setSide(false); });
  doc.getElementById('scrim').addEventListener('click', function () { setSide(false); });
  leafBtn.addEventListener('click', toLeaf);

  var thinkingOpen = false, outputsOpen = false;
  function toggleThinking() {
    thinkingOpen = !thinkingOpen;
    conv.querySelectorAll('details.thinking').forEach(function (d) { d.open = thinkingOpen; });
    doc.getElementById('toggle-thinking').setAttribute('aria-pressed', thinkingOpen ? 'true' : 'false');
  }
  function toggleOutputs() {
    outputsOpen = !outputsOpen;
    conv.querySelectorAll('.long').forEach(function (o) { setOpen(o, outputsOpen); });
    doc.getElementById('toggle-tools').setAttribute('aria-pressed', outputsOpen ? 'true' : 'false');
  }
  function setOpen(out, open) {
    out.classList.toggle('open', open);
    var b = out.querySelector(':scope > .more');
    if (b) b.textContent = open ? 'Show less' : 'Show all ' + Number(b.getAttribute('data-lines')).toLocaleString('en') + ' lines';
  }
  doc.getElementById('toggle-thinking').addEventListener('click', toggleThinking);
  doc.getElementById('toggle-tools').addEventListener('click', toggleOutputs);

  conv.addEventListener('click', function (ev) {
    var t = ev.target;
    var more = t.closest('.more');
    if (more) {
      setOpen(more.parentNode, !more.parentNode.classList.contains('open'));
      return;
    }
    var link = t.closest('a[href^="#"]');
    if (link) {
      if (follow(hashID(link.getAttribute('href')), true)) ev.preventDefault();
      return;
    }
    if (t.classList.contains('img')) zoom(t);
  });

  function zoom(img) {
    var box = doc.createElement('div');
    box.id = 'zoom';
    var big = doc.createElement('img');
    big.src = img.src;
    big.alt = img.alt;
    box.appendChild(big);
    box.addEventListener('click', function () { box.remove(); });
    doc.body.appendChild(box);
  }

  doc.addEventListener('keydown', function (ev) {
    var z = doc.getElementById('zoom');
    if (ev.key === 'Escape') {
      if (z) z.remove();
      else if (narrow() && root.classList.contains('side')) setSide(false);
      return;
    }
    var el = doc.activeElement;
    if (ev.ctrlKey || ev.metaKey || ev.altKey || (el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA'))) return;
    switch (ev.key) {
      case 't': toggleThinking(); break;
      case 'o': toggleOutputs(); break;
      case 'l': toLeaf(); break;
      case '\\': setSide(!root.classList.contains('side')); break;
      case '/':
        ev.preventDefault();
        setSide(true);
        search.focus();
        break;
      default: return;
    }
  });

  function hashID(h) {
    try { return decodeURIComponent(h.slice(1)); } catch (e) { return h.slice(1); }
  }
  window.addEventListener('hashchange', function () {
    follow(hashID(location.hash), true);
  });

  setSide(wide.matches);
  build();
  status();
  if (location.hash.length > 1) {
    follow(hashID(location.hash), true);
  }
  revealRow(current);
})();
