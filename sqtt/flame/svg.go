package flame

import (
	"bufio"
	"fmt"
	"hash/fnv"
	"html"
	"io"
	"sort"
	"strconv"
	"strings"
)

// SVGOptions controls WriteSVG.
type SVGOptions struct {
	// Title is shown at the top ("SQTT flamegraph" when empty).
	Title string
	// Width is the image width in pixels (1200 when 0).
	Width int
	// Unit names the weight ("cycles" when empty).
	Unit string
}

type svgNode struct {
	name     string
	total    int64
	execs    int64
	self     int64
	children map[string]*svgNode
	order    []*svgNode
}

func (n *svgNode) child(name string) *svgNode {
	c := n.children[name]
	if c == nil {
		c = &svgNode{name: name, children: map[string]*svgNode{}}
		n.children[name] = c
		n.order = append(n.order, c)
	}
	return c
}

const (
	frameHeight = 18
	padTop      = 76
	padBottom   = 30
	fontSize    = 11
)

// WriteSVG writes an interactive flamegraph: the root "all" at the bottom,
// callees stacked above, widths proportional to inclusive cycles, children
// ordered by descending weight. Every frame has a tooltip (name, cycles,
// share, executions, average); a search box highlights frames whose name
// matches a case-insensitive regular expression and reports the matched
// share; clicking a frame zooms to it, and Escape or "Reset zoom" undoes
// the zoom. The file needs no network access and no other files.
func WriteSVG(w io.Writer, stacks []Stack, opt SVGOptions) error {
	if opt.Width <= 0 {
		opt.Width = 1200
	}
	if opt.Title == "" {
		opt.Title = "SQTT flamegraph"
	}
	if opt.Unit == "" {
		opt.Unit = "cycles"
	}
	root := &svgNode{name: "all", children: map[string]*svgNode{}}
	maxDepth := 0
	for _, s := range stacks {
		if s.Cycles <= 0 {
			continue
		}
		n := root
		n.total += s.Cycles
		n.execs += s.Execs
		for _, f := range s.Frames {
			n = n.child(f)
			n.total += s.Cycles
			n.execs += s.Execs
		}
		n.self += s.Cycles
		if len(s.Frames) > maxDepth {
			maxDepth = len(s.Frames)
		}
	}
	W := float64(opt.Width)
	height := padTop + (maxDepth+1)*frameHeight + padBottom
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, `<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<svg version="1.1" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="%d" height="%d" viewBox="0 0 %d %d" data-unit="%s">
<style type="text/css">
text { font-family: monospace; font-size: %dpx; fill: #000; }
.fr { cursor: pointer; }
.fr:hover rect { stroke: #000; stroke-width: 0.5; }
.fr.dim { opacity: 0.3; }
.fr.hl rect { stroke: #c00; stroke-width: 1.5; }
.fr.hide { display: none; }
#title { font-size: 16px; font-weight: bold; }
#reset { fill: #06c; cursor: pointer; display: none; }
</style>
<rect x="0" y="0" width="100%%" height="100%%" fill="#fafafa"/>
<text id="title" x="10" y="22">%s</text>
<foreignObject x="10" y="32" width="420" height="28"><div xmlns="http://www.w3.org/1999/xhtml"><input id="search" type="search" placeholder="search (regex, case-insensitive)" style="width:300px;font:12px monospace"/></div></foreignObject>
<text id="matched" x="%d" y="50" text-anchor="end"></text>
<text id="reset" x="%d" y="22" text-anchor="end">Reset zoom</text>
<text id="info" x="10" y="%d"> </text>
<g id="frames">
`, opt.Width, height, opt.Width, height, esc(opt.Unit), fontSize, esc(opt.Title), opt.Width-10, opt.Width-10, height-10)
	rootTotal := float64(root.total)
	var emit func(n *svgNode, x float64, depth int)
	emit = func(n *svgNode, x float64, depth int) {
		if rootTotal == 0 {
			return
		}
		wd := float64(n.total) / rootTotal * W
		if wd < 0.5 && depth > 0 {
			return
		}
		y := float64(height - padBottom - (depth+1)*frameHeight)
		pct := float64(n.total) / rootTotal * 100
		avg := 0.0
		if n.execs > 0 {
			avg = float64(n.total) / float64(n.execs)
		}
		tip := fmt.Sprintf("%s (%s %s, %.1f%%, %s execs, avg %s %s)", n.name, commas(n.total), opt.Unit, pct, commas(n.execs), commas(int64(avg+0.5)), opt.Unit)
		if depth == 0 {
			tip = fmt.Sprintf("all (%s %s)", commas(n.total), opt.Unit)
		}
		fmt.Fprintf(bw, `<g class="fr" data-name="%s" data-x="%s" data-w="%s" data-d="%d" data-v="%d"><title>%s</title><rect x="%.2f" y="%.0f" width="%.2f" height="%d" fill="%s" rx="1"/><text x="%.2f" y="%.0f">%s</text></g>
`, esc(n.name), ff(x/W), ff(wd/W), depth, n.total, esc(tip), x, y, wd, frameHeight-1, color(n.name, depth), x+2, y+13, esc(label(n.name, wd)))
		kids := append([]*svgNode(nil), n.order...)
		sort.SliceStable(kids, func(i, j int) bool { return kids[i].total > kids[j].total })
		cx := x
		for _, c := range kids {
			emit(c, cx, depth+1)
			cx += float64(c.total) / rootTotal * W
		}
	}
	emit(root, 0, 0)
	bw.WriteString("</g>\n<script type=\"text/ecmascript\"><![CDATA[\n")
	bw.WriteString(svgScript)
	bw.WriteString("\n]]></script>\n</svg>\n")
	return bw.Flush()
}

func ff(v float64) string { return strconv.FormatFloat(v, 'g', 10, 64) }

func esc(s string) string { return html.EscapeString(s) }

// label truncates a frame name to the characters that fit in width.
func label(name string, width float64) string {
	n := int(width/(fontSize*0.6)) - 1
	if n < 2 {
		return ""
	}
	r := []rune(name)
	if len(r) <= n {
		return name
	}
	return string(r[:n-2]) + ".."
}

// color returns a deterministic warm colour for a frame name; the root is
// grey.
func color(name string, depth int) string {
	if depth == 0 {
		return "#e0e0e0"
	}
	h := fnv.New32a()
	h.Write([]byte(name))
	v := h.Sum32()
	return fmt.Sprintf("hsl(%d,%d%%,%d%%)", v%50, 60+(v>>8)%40, 50+(v>>16)%25)
}

// commas formats n with thousands separators.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// svgScript drives the search box, hover info and zoom. It also supports
// "#search=<regex>" and "#zoom=<frame name>" in the URL, and records its state in data-* attributes
// of the root element (data-ready, data-frames, data-matches, data-hidden) so that
// headless browser tests can read the result.
const svgScript = `(function () {
  "use strict";
  var svg = document.documentElement;
  var W = svg.width.baseVal.value;
  var frames = Array.prototype.slice.call(document.querySelectorAll("g.fr"));
  var info = document.getElementById("info");
  var matched = document.getElementById("matched");
  var reset = document.getElementById("reset");
  var input = document.getElementById("search");
  var unit = svg.getAttribute("data-unit") || "";
  var total = frames.length ? Number(frames[0].getAttribute("data-v")) : 0;
  function num(g, k) { return Number(g.getAttribute("data-" + k)); }
  function fit(g, x, w) {
    var r = g.querySelector("rect"), t = g.querySelector("text");
    r.setAttribute("x", x.toFixed(2));
    r.setAttribute("width", w.toFixed(2));
    t.setAttribute("x", (x + 2).toFixed(2));
    var name = g.getAttribute("data-name");
    var n = Math.floor(w / 6.6) - 1;
    t.textContent = n < 2 ? "" : (name.length <= n ? name : name.substring(0, n - 2) + "..");
  }
  function zoom(target) {
    var x0 = num(target, "x"), w0 = num(target, "w"), d0 = num(target, "d");
    frames.forEach(function (g) {
      var x = num(g, "x"), w = num(g, "w"), d = num(g, "d");
      var inside = x >= x0 - 1e-9 && x + w <= x0 + w0 + 1e-9 && d >= d0;
      var above = d < d0 && x <= x0 + 1e-9 && x + w >= x0 + w0 - 1e-9;
      if (inside) {
        g.classList.remove("hide");
        fit(g, (x - x0) / w0 * W, w / w0 * W);
      } else if (above) {
        g.classList.remove("hide");
        fit(g, 0, W);
      } else {
        g.classList.add("hide");
      }
    });
    reset.style.display = "block";
  }
  function unzoom() {
    frames.forEach(function (g) {
      g.classList.remove("hide");
      fit(g, num(g, "x") * W, num(g, "w") * W);
    });
    reset.style.display = "none";
  }
  function search(pattern) {
    var re = null;
    if (pattern) {
      try { re = new RegExp(pattern, "i"); } catch (e) { matched.textContent = "bad regex"; return -1; }
    }
    var hits = 0, covered = [];
    frames.forEach(function (g) {
      g.classList.remove("hl");
      g.classList.remove("dim");
      if (!re) return;
      if (re.test(g.getAttribute("data-name")) && num(g, "d") > 0) {
        g.classList.add("hl");
        hits++;
        covered.push([num(g, "x"), num(g, "x") + num(g, "w")]);
      } else {
        g.classList.add("dim");
      }
    });
    covered.sort(function (a, b) { return a[0] - b[0]; });
    var share = 0, end = -1;
    covered.forEach(function (c) {
      if (c[1] <= end) return;
      share += c[1] - Math.max(c[0], end);
      end = c[1];
    });
    matched.textContent = re ? "Matched: " + (share * 100).toFixed(1) + "% (" + hits + " frames)" : "";
    svg.setAttribute("data-matches", String(hits));
    return hits;
  }
  frames.forEach(function (g) {
    g.addEventListener("mouseover", function () { info.textContent = g.querySelector("title").textContent; });
    g.addEventListener("mouseout", function () { info.textContent = " "; });
    g.addEventListener("click", function () { zoom(g); });
  });
  reset.addEventListener("click", unzoom);
  document.addEventListener("keydown", function (e) {
    if (e.key === "Escape") { unzoom(); }
    if ((e.ctrlKey || e.metaKey) && e.key === "f") { e.preventDefault(); input.focus(); }
  });
  if (input) { input.addEventListener("input", function () { search(input.value); }); }
  svg.setAttribute("data-frames", String(frames.length));
  var m = /[#&]search=([^&]*)/.exec(location.hash || "");
  if (m) {
    var p = decodeURIComponent(m[1]);
    if (input) { input.value = p; }
    search(p);
  }
  var z = /[#&]zoom=([^&]*)/.exec(location.hash || "");
  if (z) {
    var zn = decodeURIComponent(z[1]);
    for (var i = 0; i < frames.length; i++) {
      if (frames[i].getAttribute("data-name") === zn) { zoom(frames[i]); break; }
    }
    svg.setAttribute("data-hidden", String(document.querySelectorAll("g.fr.hide").length));
  }
  svg.setAttribute("data-ready", total > 0 || frames.length === 0 ? "1" : "0");
})();`
