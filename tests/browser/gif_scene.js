/* A player-like scene for the GIF encoder's test and benchmark (classic script).
 *
 * GifScene.frames(count, width, height) draws `count` frames of a landing run on a canvas and
 * returns their ImageData: a filled contour plot of a cost (flat colour bands), a sphere shaded
 * smoothly by cost, the trajectory (antialiased lines) and the moving iterate (a dot) on both,
 * a convergence curve that grows with a cursor, and text (the iteration, the cost).
 * With {pan: true} the whole scene moves sideways every frame (every pixel changes: the
 * encoder's worst case, as when a 3-D view rotates).
 * GifScene.FLAT lists the flat fill colours as [r, g, b]: white and the contour bands.
 */
(function (root) {
  "use strict";

  var BANDS = [[68, 1, 84], [72, 40, 120], [62, 74, 137], [49, 104, 142], [38, 130, 142],
    [31, 158, 137], [53, 183, 121], [109, 205, 89], [180, 222, 44], [253, 231, 37]];

  function viridis(t) {  // a smooth ramp through the band colours
    t = Math.max(0, Math.min(1, t)) * (BANDS.length - 1);
    var i = Math.min(BANDS.length - 2, Math.floor(t)), u = t - i, a = BANDS[i], b = BANDS[i + 1];
    return [a[0] + (b[0] - a[0]) * u, a[1] + (b[1] - a[1]) * u, a[2] + (b[2] - a[2]) * u];
  }

  function cost(x, y) {  // a tilted quadratic bowl with a bump, on [-1, 1]^2
    return 0.6 * x * x + 1.4 * y * y + 0.5 * x * y + 0.3 * Math.sin(3 * x) * Math.cos(2 * y);
  }

  function path(t) {  // the iterate: a spiral into the minimum, t in [0, 1]
    var r = 0.85 * Math.exp(-2.5 * t), a = 7 * t + 0.6;
    return [r * Math.cos(a), r * Math.sin(a)];
  }

  // The static background: contour bands (left), the shaded sphere (right), white elsewhere.
  function background(width, height) {
    var img = new ImageData(width, height), d = img.data;
    var side = Math.min(width / 2, height * 0.7) | 0, cx = width * 0.75, cy = side / 2 + 10;
    var rad = side * 0.45;
    for (var y = 0; y < height; y++) {
      for (var x = 0; x < width; x++) {
        var o = 4 * (y * width + x), c = [255, 255, 255];
        if (x >= 10 && x < 10 + side && y >= 10 && y < 10 + side) {
          var u = (x - 10) / side * 2 - 1, v = (y - 10) / side * 2 - 1;
          var level = Math.floor(cost(u, v) / 2.4 * BANDS.length);
          c = BANDS[Math.max(0, Math.min(BANDS.length - 1, level))];
        } else {
          var sx = (x - cx) / rad, sy = (y - cy) / rad, s2 = sx * sx + sy * sy;
          if (s2 < 1) {
            var sz = Math.sqrt(1 - s2), shade = 0.35 + 0.65 * (0.3 * sx * -1 + 0.4 * -sy + 0.87 * sz);
            var col = viridis((cost(sx, sy) + 0.3) / 2.2);
            c = [col[0] * shade + 40 * (1 - shade), col[1] * shade + 40 * (1 - shade),
              col[2] * shade + 40 * (1 - shade)];
          }
        }
        d[o] = c[0]; d[o + 1] = c[1]; d[o + 2] = c[2]; d[o + 3] = 255;
      }
    }
    return {img: img, side: side, cx: cx, cy: cy, rad: rad};
  }

  function frames(count, width, height, opts) {
    var pan = !!(opts && opts.pan);
    var canvas = document.createElement("canvas");
    canvas.width = width; canvas.height = height;
    var ctx = canvas.getContext("2d", {willReadFrequently: true});
    var bg = background(width, height), side = bg.side;
    var plotTop = side + 20, plotH = height - plotTop - 10, plotL = 60, plotW = width - plotL - 20;
    var out = [];
    function toPlane(p) { return [10 + (p[0] + 1) / 2 * side, 10 + (p[1] + 1) / 2 * side]; }
    function toSphere(p) { return [bg.cx + p[0] * bg.rad, bg.cy + p[1] * bg.rad]; }
    function logCost(t) { return -0.5 - 7 * t + 0.3 * Math.sin(40 * t); }
    for (var k = 0; k < count; k++) {
      var t = count > 1 ? k / (count - 1) : 0;
      if (pan) {
        ctx.fillStyle = "#ffffff"; ctx.fillRect(0, 0, width, height);
        ctx.save(); ctx.translate(-(k % 40), 0);
        ctx.putImageData(bg.img, -(k % 40), 0);
      } else ctx.putImageData(bg.img, 0, 0);
      // trajectory on the plane and on the sphere
      var views = [toPlane, toSphere];
      for (var vi = 0; vi < 2; vi++) {
        ctx.strokeStyle = vi ? "#ffffff" : "#d62728"; ctx.lineWidth = 2; ctx.beginPath();
        for (var j = 0; j <= k; j++) {
          var q = views[vi](path(count > 1 ? j / (count - 1) : 0));
          if (j === 0) ctx.moveTo(q[0], q[1]); else ctx.lineTo(q[0], q[1]);
        }
        ctx.stroke();
        var pnt = views[vi](path(t));
        ctx.fillStyle = "#ff7f0e"; ctx.beginPath();
        ctx.arc(pnt[0], pnt[1], 5, 0, 2 * Math.PI); ctx.fill();
        ctx.strokeStyle = "#000000"; ctx.lineWidth = 1; ctx.stroke();
      }
      // convergence panel: axes, the curve so far, the cursor, text
      ctx.strokeStyle = "#444444"; ctx.lineWidth = 1;
      ctx.strokeRect(plotL + 0.5, plotTop + 0.5, plotW, plotH);
      ctx.strokeStyle = "#1f77b4"; ctx.lineWidth = 1.5; ctx.beginPath();
      for (j = 0; j <= k; j++) {
        var tj = count > 1 ? j / (count - 1) : 0;
        var px = plotL + tj * plotW, py = plotTop + (-logCost(tj) / 8) * plotH;
        if (j === 0) ctx.moveTo(px, py); else ctx.lineTo(px, py);
      }
      ctx.stroke();
      ctx.strokeStyle = "#888888"; ctx.setLineDash([4, 3]); ctx.beginPath();
      ctx.moveTo(plotL + t * plotW + 0.5, plotTop); ctx.lineTo(plotL + t * plotW + 0.5, plotTop + plotH);
      ctx.stroke(); ctx.setLineDash([]);
      ctx.fillStyle = "#222222"; ctx.font = "13px sans-serif";
      ctx.fillText("iteration " + k + "   f = " + Math.pow(10, logCost(t)).toExponential(3),
        plotL + 8, plotTop + 16);
      ctx.fillText("landing, \u03b2 = 0.5", 12, height - 14);
      if (pan) ctx.restore();
      out.push(ctx.getImageData(0, 0, width, height));
    }
    return out;
  }

  root.GifScene = {frames: frames, FLAT: [[255, 255, 255]].concat(BANDS)};
})(window);
