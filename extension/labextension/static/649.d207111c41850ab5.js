"use strict";(self.rspackChunkkernellab_jupyterlab=self.rspackChunkkernellab_jupyterlab||[]).push([[649],{475(r,e,o){var l=o(601),t=o.n(l),a=o(314),i=(o.n(a))()(t());i.push([r.id,`/*
 * kernellab compile-report viewer. Colours come from JupyterLab's theme variables; the line
 * colours are translucent hues over the theme's background, so they read in light and dark.
 */

.jp-KernellabReport {
  overflow: visible;
  padding: 2px 0;
}

.klv-report {
  font-family: var(--jp-ui-font-family);
  font-size: var(--jp-ui-font-size1);
  color: var(--jp-ui-font-color1);
  --klv-border: var(--jp-border-color2);
  --klv-code-height: clamp(14em, 62vh, 52em);
}

/* ---- header: facts, figures, options ---- */
.klv-head {
  display: flex;
  flex-direction: column;
  gap: 6px;
  margin-bottom: 6px;
}

.klv-chips {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 6px;
  margin-bottom: 4px;
}

.klv-kernel {
  font-weight: 600;
  font-size: var(--jp-ui-font-size2);
  font-family: var(--jp-code-font-family);
  margin-right: 4px;
}

.klv-chip {
  border: 1px solid var(--klv-border);
  border-radius: 10px;
  padding: 0 8px;
  background: var(--jp-layout-color2);
  color: var(--jp-ui-font-color1);
  white-space: nowrap;
}

.klv-figure-row {
  display: flex;
  flex-wrap: wrap;
  gap: 8px 24px;
  align-items: flex-start;
}

.klv-time {
  flex: 1 1 320px;
  max-width: 640px;
}

.klv-figure-title {
  font-weight: 600;
  margin-bottom: 2px;
}

.klv-bar {
  display: flex;
  height: 10px;
  border-radius: 3px;
  overflow: hidden;
  background: var(--jp-layout-color3);
}

.klv-slice {
  display: block;
  height: 100%;
  min-width: 1px;
}

.klv-legend {
  display: flex;
  flex-wrap: wrap;
  gap: 2px 12px;
  list-style: none;
  margin: 3px 0 0;
  padding: 0;
  color: var(--jp-ui-font-color2);
}

.klv-legend li {
  display: flex;
  align-items: center;
  gap: 4px;
  white-space: nowrap;
}

.klv-swatch {
  display: inline-block;
  width: 9px;
  height: 9px;
  border-radius: 2px;
}

.klv-t0 { background: hsl(210 60% 55%); }
.klv-t1 { background: hsl(30 60% 55%); }
.klv-t2 { background: hsl(150 60% 55%); }
.klv-t3 { background: hsl(280 60% 55%); }
.klv-t4 { background: hsl(0 60% 55%); }
.klv-t5 { background: hsl(90 60% 55%); }
.klv-t6 { background: hsl(330 60% 55%); }
.klv-t7 { background: hsl(190 60% 55%); }

.klv-figures {
  display: flex;
  flex-wrap: wrap;
  gap: 4px 18px;
}

.klv-figure {
  display: flex;
  flex-direction: column;
}

.klv-figure-label {
  color: var(--jp-ui-font-color2);
  font-size: var(--jp-ui-font-size0);
}

.klv-figure-value {
  font-weight: 600;
  font-family: var(--jp-code-font-family);
}

.klv-options-box summary {
  cursor: pointer;
  color: var(--jp-ui-font-color2);
}

.klv-options {
  display: flex;
  flex-wrap: wrap;
  gap: 2px 14px;
  list-style: none;
  margin: 2px 0 0;
  padding: 0;
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
}

/* ---- diagnostics ---- */
.klv-notes {
  list-style: none;
  margin: 0 0 6px;
  padding: 0;
}

.klv-notes li {
  padding: 1px 6px;
  border-left: 3px solid var(--jp-border-color1);
  margin-bottom: 2px;
}

.klv-notes li.klv-warning {
  border-left-color: var(--jp-warn-color1);
}

.klv-notes li.klv-error {
  border-left-color: var(--jp-error-color1);
}

.klv-severity {
  font-weight: 600;
  margin-right: 6px;
  color: var(--jp-ui-font-color2);
}

/* ---- panes: side by side, resized by the splitters between them (layout.ts) ---- */
.klv-panes {
  display: flex;
  align-items: stretch;
}

.klv-panes > .klv-pane {
  flex: 1 1 0;
}

.klv-panes > .klv-stage {
  flex-grow: 1.2;
}

.klv-panes.klv-single > .klv-stage:last-child,
.klv-panes.klv-single > .klv-splitter:nth-last-child(2) {
  display: none;
}

.klv-splitter {
  flex: 0 0 7px;
  cursor: col-resize;
  touch-action: none;
  background: linear-gradient(var(--klv-border), var(--klv-border)) center / 1px 40% no-repeat;
}

.klv-splitter:hover,
.klv-splitter:focus-visible,
.klv-splitter.klv-dragging,
.klv-height:hover,
.klv-height:focus-visible {
  background: var(--jp-brand-color2);
  outline: none;
}

.klv-height {
  height: 7px;
  margin: 1px 0 4px 0;
  cursor: row-resize;
  touch-action: none;
  border-radius: 3px;
  background: linear-gradient(var(--klv-border), var(--klv-border)) center / 48px 1px no-repeat;
}

/* full width: one pane per row, each as wide as the output */
.klv-wide .klv-panes {
  flex-direction: column;
  gap: 6px;
}

.klv-wide .klv-panes > .klv-pane {
  flex: 0 0 auto !important;
}

.klv-wide .klv-splitter {
  display: none;
}

/* wrapped lines instead of a sideways scroll */
.klv-wrap .klv-lines {
  min-width: 0;
}

.klv-wrap .klv-line {
  white-space: pre-wrap;
}

.klv-wrap .klv-text {
  min-width: 0;
  overflow-wrap: anywhere;
}

/* the assembly filters (lines stay in the DOM, hidden) */
.klv-hide-directive .klv-f-directive,
.klv-hide-comment .klv-f-comment,
.klv-hide-label .klv-f-label,
.klv-hide-constant .klv-f-constant {
  display: none;
}

.klv-filters {
  display: flex;
  flex-wrap: wrap;
  align-items: center;
  gap: 2px;
  margin-left: auto;
  font-size: var(--jp-ui-font-size0);
  color: var(--jp-ui-font-color2);
}

.klv-filters-label {
  margin-right: 2px;
}

.klv-toggle {
  font: inherit;
  color: var(--jp-ui-font-color1);
  background: transparent;
  border: 1px solid var(--klv-border);
  border-radius: 3px;
  padding: 0 6px;
  cursor: pointer;
  white-space: nowrap;
}

.klv-toggle[aria-pressed='true'] {
  background: var(--jp-layout-color2);
  border-color: var(--jp-brand-color1);
}

.klv-pane {
  border: 1px solid var(--klv-border);
  border-radius: 4px;
  background: var(--jp-layout-color0);
  min-width: 0;
  display: flex;
  flex-direction: column;
}

.klv-pane-head {
  display: flex;
  align-items: center;
  gap: 8px;
  min-height: 26px;
  padding: 0 6px;
  border-bottom: 1px solid var(--klv-border);
  background: var(--jp-layout-color1);
  overflow-x: auto;
}

.klv-pane-title {
  font-weight: 600;
}

.klv-pane-note {
  color: var(--jp-ui-font-color2);
  white-space: nowrap;
  overflow: hidden;
  text-overflow: ellipsis;
}

.klv-tabs {
  display: flex;
  flex-wrap: wrap;
  gap: 2px;
}

.klv-tab,
.klv-split,
.klv-fold {
  font: inherit;
  color: var(--jp-ui-font-color1);
  background: transparent;
  border: 1px solid transparent;
  border-radius: 3px;
  padding: 1px 8px;
  cursor: pointer;
}

.klv-tab:hover,
.klv-split:hover,
.klv-fold:hover {
  background: var(--jp-layout-color2);
}

.klv-tab.klv-active {
  background: var(--jp-layout-color0);
  border-color: var(--jp-brand-color1);
  color: var(--jp-ui-font-color0);
  font-weight: 600;
}

.klv-split {
  border-color: var(--klv-border);
  margin-left: auto;
}

.klv-body {
  position: relative;
}

.klv-sized .klv-scroll {
  height: var(--klv-code-height);
}

.klv-scroll {
  max-height: var(--klv-code-height);
  overflow: auto;
  margin-right: 8px;
}

.klv-marks {
  position: absolute;
  top: 0;
  right: 0;
  bottom: 0;
  width: 8px;
  background: var(--jp-layout-color1);
  border-left: 1px solid var(--klv-border);
}

.klv-mark {
  position: absolute;
  left: 1px;
  right: 1px;
  height: 3px;
  background: var(--jp-brand-color1);
  cursor: pointer;
}

.klv-lines,
.klv-difflines {
  font-family: var(--jp-code-font-family);
  font-size: var(--jp-code-font-size);
  line-height: 1.45;
  padding: 2px 0;
  min-width: max-content;
  tab-size: 4;
}

.klv-line,
.klv-dline {
  display: flex;
  white-space: pre;
  border-left: 3px solid transparent;
  cursor: default;
}

.klv-no,
.klv-at {
  flex: 0 0 auto;
  min-width: 3.2em;
  padding-right: 8px;
  text-align: right;
  color: var(--jp-ui-font-color3);
  user-select: none;
}

.klv-at {
  min-width: 2.4em;
  color: hsl(var(--klv-h, 0) 65% 50%);
  font-weight: 600;
}

.klv-text {
  padding-right: 8px;
  color: var(--jp-content-font-color1);
}

.klv-line.klv-mapped {
  background: hsl(var(--klv-h) 80% 55% / 0.12);
  border-left-color: hsl(var(--klv-h) 70% 50% / 0.8);
}

.klv-line.klv-hl {
  background: var(--jp-layout-color3);
  border-left-color: var(--jp-brand-color1);
}

.klv-line.klv-mapped.klv-hl {
  background: hsl(var(--klv-h) 85% 55% / 0.42);
  border-left-color: hsl(var(--klv-h) 80% 45%);
  outline: 1px solid hsl(var(--klv-h) 75% 50% / 0.9);
  outline-offset: -1px;
}

.klv-folded {
  display: none;
}

.klv-unfold {
  display: block;
  width: 100%;
  font: inherit;
  font-family: var(--jp-ui-font-family);
  font-style: italic;
  text-align: left;
  padding: 1px 0 1px 4.2em;
  color: var(--jp-ui-font-color2);
  background: var(--jp-layout-color1);
  border: none;
  border-top: 1px dashed var(--klv-border);
  border-bottom: 1px dashed var(--klv-border);
  cursor: pointer;
}

.klv-unfold:hover {
  background: var(--jp-layout-color2);
}

.klv-more {
  color: var(--jp-ui-font-color2);
  font-style: italic;
  padding-left: 8px;
}

.klv-c0 { --klv-h: 0; }
.klv-c1 { --klv-h: 150; }
.klv-c2 { --klv-h: 300; }
.klv-c3 { --klv-h: 90; }
.klv-c4 { --klv-h: 240; }
.klv-c5 { --klv-h: 30; }
.klv-c6 { --klv-h: 180; }
.klv-c7 { --klv-h: 330; }
.klv-c8 { --klv-h: 120; }
.klv-c9 { --klv-h: 270; }
.klv-c10 { --klv-h: 60; }
.klv-c11 { --klv-h: 210; }

/* ---- A/B ---- */
.klv-abtable {
  border-collapse: collapse;
  margin: 4px 0 8px;
  font-size: var(--jp-ui-font-size1);
}

.klv-abtable th,
.klv-abtable td {
  padding: 1px 12px 1px 4px;
  text-align: right;
  white-space: nowrap;
  border-bottom: 1px solid var(--jp-border-color3);
}

.klv-abtable th {
  font-weight: 400;
  color: var(--jp-ui-font-color2);
}

.klv-abtable thead th {
  font-weight: 600;
  color: var(--jp-ui-font-color1);
  border-bottom: 1px solid var(--jp-border-color1);
}

.klv-abtable tr.klv-group th {
  text-align: left;
  font-weight: 600;
  color: var(--jp-ui-font-color1);
  padding-top: 6px;
}

.klv-abtable td {
  font-family: var(--jp-code-font-family);
}

.klv-change.klv-better {
  color: var(--jp-success-color1);
}

.klv-change.klv-worse {
  color: var(--jp-error-color1);
}

.klv-sides > .klv-tabs,
.klv-diffs > .klv-tabs {
  margin-bottom: 4px;
  padding-bottom: 2px;
  border-bottom: 1px solid var(--klv-border);
}

.klv-diff {
  border: 1px solid var(--klv-border);
  border-radius: 4px;
  background: var(--jp-layout-color0);
}

.klv-diff-summary {
  padding: 2px 6px;
  border-bottom: 1px solid var(--klv-border);
  background: var(--jp-layout-color1);
  font-weight: 600;
}

.klv-dline.klv-added {
  background: hsl(130 60% 45% / 0.18);
  border-left-color: hsl(130 60% 40%);
}

.klv-dline.klv-removed {
  background: hsl(0 75% 55% / 0.16);
  border-left-color: hsl(0 75% 50%);
}

.klv-marker {
  flex: 0 0 1.5em;
  text-align: center;
  color: var(--jp-ui-font-color2);
  user-select: none;
}

.klv-fold {
  display: block;
  width: 100%;
  text-align: left;
  padding-left: 6.4em;
  color: var(--jp-ui-font-color2);
  font-style: italic;
}

.klv-invalid {
  padding: 4px 8px;
  border-left: 3px solid var(--jp-error-color1);
}

/* ---- %%tile_kernel magic line in the editor ---- */
.cm-kernellab-magic {
  color: var(--jp-mirror-editor-keyword-color);
  font-weight: bold;
}

.cm-kernellab-magic-option {
  color: var(--jp-mirror-editor-attribute-color);
}

/* ---- the pass timeline (passes.ts) ---- */
.klv-passes {
  margin-top: 8px;
  border: 1px solid var(--jp-border-color2);
  border-radius: 4px;
  padding: 4px 6px;
}

.klv-timeline {
  list-style: none;
  margin: 4px 0;
  padding: 0;
}

.klv-pass {
  display: flex;
  gap: 8px;
  align-items: center;
  width: 100%;
  padding: 1px 6px;
  border: none;
  border-left: 3px solid transparent;
  background: none;
  color: var(--jp-ui-font-color1);
  font: inherit;
  text-align: left;
  cursor: pointer;
}

.klv-pass:hover {
  background: var(--jp-layout-color2);
}

.klv-pass.klv-active {
  background: var(--jp-layout-color3);
  border-left-color: var(--jp-brand-color1);
  font-weight: 600;
}

.klv-pass.klv-same {
  color: var(--jp-ui-font-color2);
}

.klv-pass-no {
  min-width: 1.8em;
  text-align: right;
  color: var(--jp-ui-font-color3);
}

.klv-pass-name {
  min-width: 9em;
}

.klv-pass-dialect {
  min-width: 5em;
  color: var(--jp-ui-font-color2);
}

.klv-pbar {
  flex: 0 0 12em;
  height: 0.7em;
  background: var(--jp-layout-color2);
  border-radius: 2px;
}

.klv-pbar-fill {
  display: block;
  height: 100%;
  min-width: 1px;
  background: hsl(210 70% 55% / 0.7);
  border-radius: 2px;
}

.klv-pass-ms {
  min-width: 5em;
  text-align: right;
}

.klv-pass-what {
  color: var(--jp-ui-font-color2);
}

.klv-pass-panel .klv-difflines {
  max-height: 32em;
  overflow: auto;
}

.klv-pass-title {
  display: flex;
  gap: 8px;
  align-items: baseline;
  padding: 4px 0;
}

.klv-pass-note {
  padding: 4px 8px;
  font-style: italic;
  color: var(--jp-ui-font-color2);
}

.klv-dline.klv-removed .klv-text {
  text-decoration: line-through;
  text-decoration-color: var(--jp-ui-font-color3);
}

/* The line a %%tile_kernel cell's compile error points at (errorline.ts). */
.cm-kernellab-error-line {
  background-color: color-mix(in srgb, var(--jp-error-color1, #d32f2f) 16%, transparent);
  box-shadow: inset 3px 0 0 var(--jp-error-color1, #d32f2f);
}
`,""]),o.d(e,{},{A:i})},126(r,e,o){var l=o(601),t=o.n(l),a=o(314),i=(o.n(a))()(t());i.push([r.id,`/* kernellab's perf charts (kernellab/testing/chart.py) in JupyterLab's theme.
 * The charts are Plotly figures with a transparent background whose text is drawn in one exact
 * grey, rgb(127, 127, 128) (chart.FONT), readable on light and dark pages where this stylesheet
 * is absent (VS Code, exported HTML). Here that grey becomes the theme's font colour; Plotly sets
 * it as an inline style, which only an !important rule overrides. Other Plotly figures keep
 * their own colours: they do not use that grey. */
.jp-RenderedPlotly .main-svg text[style*='fill: rgb(127, 127, 128)'] {
  fill: var(--jp-ui-font-color1) !important;
}

/* The live sweep's table of values so far: scrolls sideways instead of overflowing. */
.kl-live-table table.dataframe td,
.kl-live-table table.dataframe th {
  padding: 0.1em 0.6em;
  text-align: right;
  white-space: nowrap;
}

/* The explorer's busy line while a setting compiles and runs. */
.kl-busy {
  color: var(--jp-ui-font-color2);
  font-style: italic;
}
`,""]),o.d(e,{},{A:i})},314(r){r.exports=function(r){var e=[];return e.toString=function(){return this.map(function(e){var o="",l=void 0!==e[5];return e[4]&&(o+="@supports (".concat(e[4],") {")),e[2]&&(o+="@media ".concat(e[2]," {")),l&&(o+="@layer".concat(e[5].length>0?" ".concat(e[5]):""," {")),o+=r(e),l&&(o+="}"),e[2]&&(o+="}"),e[4]&&(o+="}"),o}).join("")},e.i=function(r,o,l,t,a){"string"==typeof r&&(r=[[null,r,void 0]]);var i={};if(l)for(var n=0;n<this.length;n++){var p=this[n][0];null!=p&&(i[p]=!0)}for(var s=0;s<r.length;s++){var d=[].concat(r[s]);l&&i[d[0]]||(void 0!==a&&(void 0===d[5]||(d[1]="@layer".concat(d[5].length>0?" ".concat(d[5]):""," {").concat(d[1],"}")),d[5]=a),o&&(d[2]&&(d[1]="@media ".concat(d[2]," {").concat(d[1],"}")),d[2]=o),t&&(d[4]?(d[1]="@supports (".concat(d[4],") {").concat(d[1],"}"),d[4]=t):d[4]="".concat(t)),e.push(d))}},e}},601(r){r.exports=function(r){return r[1]}},72(r){var e=[];function o(r){for(var o=-1,l=0;l<e.length;l++)if(e[l].identifier===r){o=l;break}return o}function l(r,l){for(var t={},a=[],i=0;i<r.length;i++){var n=r[i],p=l.base?n[0]+l.base:n[0],s=t[p]||0,d="".concat(p," ").concat(s);t[p]=s+1;var v=o(d),c={css:n[1],media:n[2],sourceMap:n[3],supports:n[4],layer:n[5]};if(-1!==v)e[v].references++,e[v].updater(c);else{var k=function(r,e){var o=e.domAPI(e);return o.update(r),function(e){e?(e.css!==r.css||e.media!==r.media||e.sourceMap!==r.sourceMap||e.supports!==r.supports||e.layer!==r.layer)&&o.update(r=e):o.remove()}}(c,l);l.byIndex=i,e.splice(i,0,{identifier:d,updater:k,references:1})}a.push(d)}return a}r.exports=function(r,t){var a=l(r=r||[],t=t||{});return function(r){r=r||[];for(var i=0;i<a.length;i++){var n=o(a[i]);e[n].references--}for(var p=l(r,t),s=0;s<a.length;s++){var d=o(a[s]);0===e[d].references&&(e[d].updater(),e.splice(d,1))}a=p}}},659(r){var e={};r.exports=function(r,o){var l=function(r){if(void 0===e[r]){var o=document.querySelector(r);if(window.HTMLIFrameElement&&o instanceof window.HTMLIFrameElement)try{o=o.contentDocument.head}catch(r){o=null}e[r]=o}return e[r]}(r);if(!l)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");l.appendChild(o)}},540(r){r.exports=function(r){var e=document.createElement("style");return r.setAttributes(e,r.attributes),r.insert(e,r.options),e}},56(r,e,o){r.exports=function(r){var e=o.nc;e&&r.setAttribute("nonce",e)}},825(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var e=r.insertStyleElement(r);return{update:function(o){var l,t,a;l="",o.supports&&(l+="@supports (".concat(o.supports,") {")),o.media&&(l+="@media ".concat(o.media," {")),(t=void 0!==o.layer)&&(l+="@layer".concat(o.layer.length>0?" ".concat(o.layer):""," {")),l+=o.css,t&&(l+="}"),o.media&&(l+="}"),o.supports&&(l+="}"),(a=o.sourceMap)&&"u">typeof btoa&&(l+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),r.styleTagTransform(l,e,r.options)},remove:function(){var r;null===(r=e).parentNode||r.parentNode.removeChild(r)}}}},113(r){r.exports=function(r,e){if(e.styleSheet)e.styleSheet.cssText=r;else{for(;e.firstChild;)e.removeChild(e.firstChild);e.appendChild(document.createTextNode(r))}}},600(r,e,o){var l=o(72),t=o.n(l),a=o(825),i=o.n(a),n=o(659),p=o.n(n),s=o(56),d=o.n(s),v=o(540),c=o.n(v),k=o(113),f=o.n(k),u=o(475),h={};h.styleTagTransform=f(),h.setAttributes=d(),h.insert=p().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=c(),t()(u.A,h),u.A&&u.A.locals&&u.A.locals;var g=o(126),b={};b.styleTagTransform=f(),b.setAttributes=d(),b.insert=p().bind(null,"head"),b.domAPI=i(),b.insertStyleElement=c(),t()(g.A,b),g.A&&g.A.locals&&g.A.locals}}]);