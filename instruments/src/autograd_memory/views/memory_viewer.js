// The Active Memory Timeline of a memory snapshot (torch.cuda.memory._snapshot()'s dict, in the page as JSON):
// each allocation is a band from its alloc to its free_completed, stacked on those alive before it; when a block is
// freed, the bands above it move down. x: the allocator's events (each alloc and free_completed is one), y: bytes.
// Blocks alive before the trace (freed with no alloc in it, or in `segments` with none) are drawn from event 0.
// Hover a band for its size and its Python stack; click it to keep it. Needs d3 5 (window.d3) and nothing else.
"use strict";

const FRAMES_SHOWN = 12;  // the innermost frames of a band's stack that its detail lists

function formatBytes(n) {  // the course's one format of sizes (formats/units.py): decimal units
  for (const [unit, scale] of [["GB", 1e9], ["MB", 1e6], ["kB", 1e3]]) {
    if (n >= scale) {
      const value = n / scale;
      return `${value.toFixed(value < 10 ? 2 : 1)} ${unit}`;
    }
  }
  return `${Math.round(n)} B`;
}

function timeline(snapshot, device) {
  // {bands, steps, peak, peakStep}: each band {size, frames, start, end, offsets: [[step, offset], ...], before}
  const trace = snapshot.device_traces[device] || [];
  const allocated = new Set();
  const before = [];  // alive before the trace: freed with no alloc, or still in `segments` with none
  for (const event of trace) {
    if (event.action === "alloc") allocated.add(event.addr);
    else if (event.action === "free_completed") {
      if (allocated.has(event.addr)) allocated.delete(event.addr);
      else before.push({addr: event.addr, size: event.size, frames: event.frames || []});
    }
  }
  for (const segment of snapshot.segments) {
    if (segment.device !== device) continue;
    for (const block of segment.blocks || []) {
      if (block.state === "active_allocated" && !allocated.has(block.address)) {
        before.push({addr: block.address, size: block.size, frames: block.frames || []});
      }
    }
  }
  const bands = [], stack = [], live = new Map();
  let total = 0, step = 0, peak = 0, peakStep = 0;
  const push = (addr, size, frames, isBefore) => {
    const band = {size, frames, start: step, end: null, freed: false, offsets: [[step, total]], before: isBefore};
    bands.push(band);
    stack.push(band);
    live.set(addr, band);
    total += size;
    if (total > peak) [peak, peakStep] = [total, step];
  };
  for (const block of before) push(block.addr, block.size, block.frames, true);
  for (const event of trace) {
    if (event.action === "alloc") {
      step += 1;
      push(event.addr, event.size, event.frames || [], false);
    } else if (event.action === "free_completed") {
      step += 1;
      const band = live.get(event.addr);
      if (band === undefined) continue;  // a free the replay cannot place: nothing of it is drawn
      live.delete(event.addr);
      band.end = step;
      band.freed = true;
      const index = stack.indexOf(band);
      stack.splice(index, 1);
      for (const above of stack.slice(index)) {
        const offset = above.offsets[above.offsets.length - 1][1] - band.size;
        above.offsets.push([step, offset]);
      }
      total -= band.size;
    }
  }
  for (const band of bands) if (band.end === null) band.end = step;
  return {bands, steps: step, peak, peakStep};
}

function bandPath(band, x, y) {
  // the band's outline: its bottom edge forward in time (a step down where a block below it was freed), its top back
  const bottom = [], top = [];
  band.offsets.forEach(([step, offset], i) => {
    const next = i + 1 < band.offsets.length ? band.offsets[i + 1][0] : band.end;
    bottom.push([x(step), y(offset)], [x(next), y(offset)]);
    top.push([x(step), y(offset + band.size)], [x(next), y(offset + band.size)]);
  });
  const points = bottom.concat(top.reverse());
  return "M" + points.map(([px, py]) => `${px.toFixed(2)},${py.toFixed(2)}`).join("L") + "Z";
}

function frameText(frame) {  // an installed package's file from its package's folder on: torch/nn/modules/linear.py
  return `${frame.filename.replace(/^.*[\\/](site|dist)-packages[\\/]/, "")}:${frame.line}:${frame.name}`;
}

function detailText(band) {
  const when = band.before ? "alive before the trace began" : `allocated at event ${band.start}`;
  const freed = band.freed ? `, freed at event ${band.end}` : ", alive at the end";
  const lines = [`${formatBytes(band.size)} (${band.size.toLocaleString("en")} bytes), ${when}${freed}`];
  if (band.frames.length === 0) lines.push("no stack recorded (allocated before the recording began)");
  band.frames.slice(0, FRAMES_SHOWN).forEach(frame => lines.push("  " + frameText(frame)));
  if (band.frames.length > FRAMES_SHOWN) lines.push(`  … ${band.frames.length - FRAMES_SHOWN} outer frames more`);
  return lines.join("\n");
}

function draw(snapshot, device) {
  const d3 = window.d3;
  const data = timeline(snapshot, device);
  const allocations = data.bands.filter(band => !band.before).length;
  d3.select("#summary").text(`${allocations} allocations, ${data.bands.length - allocations} blocks alive before the `
    + `trace, ${data.steps} events; peak ${formatBytes(data.peak)} at event ${data.peakStep}`);

  const svg = d3.select("#plot");
  svg.selectAll("*").remove();
  const box = svg.node().getBoundingClientRect();
  const margin = {top: 28, right: 24, bottom: 46, left: 92};
  const width = Math.max(box.width - margin.left - margin.right, 100);
  const height = Math.max(box.height - margin.top - margin.bottom, 80);
  const x = d3.scaleLinear().domain([0, Math.max(data.steps, 1)]).range([0, width]);
  const y = d3.scaleLinear().domain([0, Math.max(data.peak, 1) * 1.08]).range([height, 0]);
  const plot = svg.append("g").attr("transform", `translate(${margin.left},${margin.top})`);
  plot.append("g").attr("class", "axis").attr("transform", `translate(0,${height})`)
    .call(d3.axisBottom(x).ticks(Math.min(10, Math.max(data.steps, 1))).tickFormat(d3.format("d")));
  plot.append("g").attr("class", "axis").call(d3.axisLeft(y).ticks(6).tickFormat(formatBytes));
  plot.append("text").attr("class", "label").attr("x", width / 2).attr("y", height + 40).attr("text-anchor", "middle")
    .text("allocator events (each allocation and each free), in order");
  plot.append("text").attr("class", "label").attr("transform", "rotate(-90)").attr("x", -height / 2)
    .attr("y", -margin.left + 16).attr("text-anchor", "middle").text("bytes allocated");

  const color = d3.scaleOrdinal(d3.schemeTableau10);
  const detail = d3.select("#detail");
  let pinned = null;
  const show = (band, path) => {
    plot.selectAll("path.band").classed("selected", false);
    d3.select(path).classed("selected", true);
    detail.text(detailText(band));
  };
  plot.append("g").selectAll("path").data(data.bands).enter().append("path")
    .attr("class", "band")
    .attr("d", band => bandPath(band, x, y))
    .attr("fill", (band, i) => band.before ? "#bbbbbb" : color(i % 10))
    .attr("data-size", band => band.size)
    .attr("data-top", band => Math.max(...band.offsets.map(([, offset]) => offset + band.size)))
    .attr("data-before", band => band.before)
    .on("mouseover", function (band) { if (pinned === null) show(band, this); })
    .on("click", function (band) {
      pinned = pinned === band ? null : band;
      show(band, this);
    });

  const peakY = y(data.peak), peakX = x(data.peakStep);
  plot.append("line").attr("class", "peak").attr("x1", 0).attr("x2", width).attr("y1", peakY).attr("y2", peakY);
  plot.append("circle").attr("class", "peak").attr("cx", peakX).attr("cy", peakY).attr("r", 4);
  plot.append("text").attr("class", "peak-label").attr("x", peakX).attr("y", peakY - 8)
    .attr("text-anchor", peakX > width * 0.7 ? "end" : peakX < width * 0.3 ? "start" : "middle")
    .text(`peak ${formatBytes(data.peak)} (event ${data.peakStep})`);
}

function main() {
  const snapshot = JSON.parse(document.getElementById("snapshot").textContent);
  const traces = snapshot.device_traces.map((trace, device) => ({device, events: trace.length,
    allocations: trace.filter(event => event.action === "alloc").length,
    blocks: snapshot.segments.filter(segment => segment.device === device).length}));
  const shown = traces.filter(trace => trace.events + trace.blocks > 0);
  const select = document.getElementById("device");
  (shown.length ? shown : traces.slice(0, 1)).forEach(trace => {
    const option = document.createElement("option");
    option.value = trace.device;
    option.textContent = `device ${trace.device}: ${trace.allocations} allocation${trace.allocations === 1 ? "" : "s"}`;
    select.appendChild(option);
  });
  select.value = String(shown.reduce((most, trace) => trace.events > most.events ? trace : most,
                                     shown[0] || traces[0] || {device: 0}).device);
  document.getElementById("devices").hidden = shown.length < 2;
  const redraw = () => draw(snapshot, Number(select.value));
  select.addEventListener("change", redraw);
  window.addEventListener("resize", redraw);
  redraw();
}

main();
