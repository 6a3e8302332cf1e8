// lunar session export: the conversation, the tree in the sidebar and
// navigation. The page holds every entry's article as HTML, escaped when
// the page was written, in two <noscript> elements, which a browser that
// runs scripts keeps as text: the leaf's path in the conversation (plain
// HTML without JavaScript) and every other entry in a hidden element. The
// conversation shows the path to one entry, cut into blocks; a block's
// articles are built from their HTML only when it comes near the view
// (or is printed), and the tree is a virtual list whose rows exist only
// in view, so a session of any size opens at once.
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
  var byId = new Map();
  for (var i = 0; i < n; i++) {
    if (!byId.has(ids[i])) byId.set(ids[i], i);
  }

  // onPath is each entry's place on the shown path, from 1; 0 off it.
  var onPath = new Int32Array(n);
  var shown = pathTo(leaf);
  shown.forEach(function (k, x) { onPath[k] = x + 1; });
  var current = leaf;
  // Kinds whose entries put messages into the model's context.
  var contextKinds = { user: 1, assistant: 1, tool: 1, error: 1, bash: 1, custom: 1, branch: 1 };

  // html is each entry's article without "</article>": the leaf's path in
  // order, then the other entries in order, each text's articles ended by
  // "</article>\n" (which escaped text cannot hold).
  var html = new Array(n);
  (function () {
    var parts = articles(conv), x = 0, k;
    for (; x < shown.length; x++) html[shown[x]] = parts[x];
    parts = articles(doc.getElementById('branches'));
    for (k = 0, x = 0; k < n; k++) {
      if (!onPath[k]) html[k] = parts[x++];
    }
  })();
  function articles(holder) {
    var ns = holder && holder.querySelector('noscript');
    if (!ns) return [];
    var t = ns.textContent;
    ns.remove();
    return t.split('</article>\n');
  }

  function pathTo(k) {
    var p = [];
    for (var j = k; j >= 0 && p.length <= n; j = parent[j]) p.push(j);
    return p.reverse();
  }

  // --- the conversation -------------------------------------------------

  var where = doc.getElementById('where');
  var leafBtn = doc.getElementById('to-leaf');
  var BLOCK = 32, GUESS = 160; // articles a block; a guess at an article's height (px)
  var blocks = []; // the shown path's blocks: blocks[b] holds shown[b*BLOCK ...]
  var built = []; // built[b]: blocks[b]'s articles exist
  var els = new Map(); // entry → its article, while it exists
  var target = -1;
  var thinkingOpen = false, outputsOpen = false;
  var near = new IntersectionObserver(function (list) {
    list.forEach(function (e) {
      var b = +e.target.getAttribute('data-b');
      if (e.isIntersecting && blocks[b] === e.target) build(b);
    });
  }, { rootMargin: '1500px 0px' });

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

  // layout replaces the blocks from the b-th on with empty ones for the
  // rest of the shown path, each as high as its articles might be.
  function layout(b) {
    for (var o = b; o < blocks.length; o++) {
      near.unobserve(blocks[o]);
      if (built[o]) {
        Array.prototype.forEach.call(blocks[o].children, function (a) { els.delete(+a.getAttribute('data-i')); });
      }
      blocks[o].remove();
    }
    blocks.length = built.length = b;
    var frag = doc.createDocumentFragment();
    for (; b * BLOCK < shown.length; b++) {
      var el = doc.createElement('div');
      el.className = 'blk';
      el.setAttribute('data-b', b);
      el.style.height = Math.min(BLOCK, shown.length - b * BLOCK) * GUESS + 'px';
      blocks.push(el);
      built.push(false);
      frag.appendChild(el);
      near.observe(el);
    }
    conv.appendChild(frag);
  }

  // build makes the articles of block b from their HTML.
  function build(b) {
    if (b < 0 || b >= blocks.length || built[b]) return;
    var el = blocks[b], from = b * BLOCK, to = Math.min(shown.length, from + BLOCK), parts = [];
    for (var x = from; x < to; x++) parts.push(html[shown[x]] || '<article class="e">', '</article>');
    el.innerHTML = parts.join('');
    el.style.height = '';
    built[b] = true;
    near.unobserve(el);
    var arts = el.children;
    for (x = from; x < to && x - from < arts.length; x++) {
      var a = arts[x - from], k = shown[x];
      els.set(k, a);
      if (x < cutFrom && contextKinds[kind[k]] === 1) a.classList.add('compacted');
      else a.classList.remove('compacted');
      if (k === target) a.classList.add('target');
    }
    if (thinkingOpen) el.querySelectorAll('details.thinking').forEach(function (d) { d.open = true; });
    if (outputsOpen) el.querySelectorAll('.long').forEach(function (o) { setOpen(o, true); });
  }

  // article is entry k's article (k on the shown path), built with its
  // neighbours so that what is around it has its height.
  function article(k) {
    var b = Math.floor((onPath[k] - 1) / BLOCK);
    build(b - 1);
    build(b);
    build(b + 1);
    return els.get(k);
  }

  // show makes the conversation the path from the root to entry k. Only
  // the blocks past the part the old and new paths share change.
  function show(k, scroll) {
    var path = pathTo(k), x;
    var common = 0;
    while (common < shown.length && common < path.length && shown[common] === path[common]) common++;
    for (x = common; x < shown.length; x++) onPath[shown[x]] = 0;
    for (x = common; x < path.length; x++) onPath[path[x]] = x + 1;
    var keep = common === path.length && common === shown.length ? blocks.length : Math.floor(common / BLOCK);
    var from = compactedFrom(path);
    for (x = 0; x < Math.min(keep * BLOCK, Math.max(from, cutFrom)); x++) {
      var a = els.get(path[x]);
      if (a) a.classList.toggle('compacted', x < from && contextKinds[kind[path[x]]] === 1);
    }
    cutFrom = from;
    shown = path;
    layout(keep);
    current = k;
    status();
    drawRows();
    revealRow(k);
    if (scroll && k >= 0) mark(k, true);
  }

  // mark outlines entry k (the one a link or the tree chose).
  function mark(k, scroll) {
    var old = els.get(target);
    if (old) old.classList.remove('target');
    target = k;
    var a = article(k);
    if (!a) return;
    a.classList.add('target');
    if (scroll) a.scrollIntoView({ block: 'start' });
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
    var a = leaf >= 0 && article(leaf);
    if (a) a.scrollIntoView({ block: 'end' });
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

  // Print shows the whole path.
  window.addEventListener('beforeprint', function () {
    for (var b = 0; b < blocks.length; b++) build(b);
  });

  // --- the tree ---------------------------------------------------------

  var treeBox = doc.getElementById('tree');
  var inner = doc.getElementById('tree-inner');
  var search = doc.getElementById('search');
  var treeStatus = doc.getElementById('tree-status');
  var ROW = 22;
  var rows = [], prefix = [], rowOf = new Int32Array(n).fill(-1);
  var filter = 'all', query = null; // query: the search as a pair of patterns, or null

  var messageKinds = { user: 1, assistant: 1, tool: 1, error: 1, bash: 1, custom: 1, compaction: 1, branch: 1 };
  var marks = { user: 'U', assistant: 'A', tool: 'T', error: '!', bash: '$', custom: 'H', compaction: 'C', branch: 'B', setting: '·', state: '·', other: '?' };

  function visible(k) {
    if (filter === 'messages' && !messageKinds[kind[k]]) return false;
    if (filter === 'user' && kind[k] !== 'user') return false;
    if (filter === 'labelled' && !labels[k]) return false;
    if (query) {
      return query.text.test(text[k]) || (labels[k] !== undefined && query.text.test(labels[k])) || inArticle(query.html, html[k]);
    }
    return true;
  }

  // The page's writer escapes exactly these characters in text, and
  // writes every other character as itself.
  var escaped = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '(?:"|&quot;|&#34;)', "'": "(?:'|&#39;)" };
  function literal(c) { return c.replace(/[\\^$.*+?()[\]{}|\/-]/g, '\\$&'); }

  // searchFor makes the patterns for a search: one for text, one for
  // an article's HTML, where the searched text may be cut by tags
  // (highlighted code) and have characters escaped. So a search reads the
  // HTML once, as fast as it can be read, instead of the text of every
  // article first.
  function searchFor(q) {
    if (!q) return null;
    var h = [];
    for (var c = 0; c < q.length; c++) h.push(escaped[q[c]] || literal(q[c]));
    return { text: new RegExp(literal(q), 'i'), html: new RegExp(h.join('(?:<[^>]*>)*'), 'gi') };
  }

  // inArticle says the pattern matches the text of an article's HTML: it
  // matches somewhere that is not inside a tag (where the last "<" before
  // it has been closed).
  function inArticle(re, h) {
    if (!h) return false;
    re.lastIndex = 0;
    for (var m; (m = re.exec(h)) !== null; re.lastIndex = m.index + 1) {
      if (h.lastIndexOf('<', m.index) <= h.lastIndexOf('>', m.index)) return true;
    }
    return false;
  }

  // onLeaf marks the leaf's path, the trunk of the tree's layout.
  var onLeaf = new Uint8Array(n);
  pathTo(leaf).forEach(function (k) { onLeaf[k] = 1; });

  // buildRows lays out the rows of the entries the filter keeps, each under
  // its nearest kept ancestor. A fork's children that leave the trunk (the
  // child on the leaf's path, else the newest) are drawn first, indented
  // with ├─; the trunk goes on in its parent's column. So the leaf's path
  // is one straight column, and a tree indents only as deep as branches
  // nest, not once a fork.
  function buildRows() {
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
      query = searchFor(search.value.trim());
      buildRows();
      revealRow(current);
    }, 120);
  });
  search.addEventListener('keydown', function (ev) {
    if (ev.key === 'Escape') {
      search.value = '';
      query = null;
      buildRows();
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
      buildRows();
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

  layout(0);
  build(0);
  build(1);
  setSide(wide.matches);
  buildRows();
  status();
  if (location.hash.length > 1) {
    follow(hashID(location.hash), true);
  }
  revealRow(current);
})();
