"use strict";(self.rspackChunkkernellab_jupyterlab=self.rspackChunkkernellab_jupyterlab||[]).push([[232],{277(r,o,e){var l=e(415),t=e.n(l),a=e(688),i=(e.n(a))()(t());i.push([r.id,`/*
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
`,""]),e.d(o,{},{A:i})},688(r){r.exports=function(r){var o=[];return o.toString=function(){return this.map(function(o){var e="",l=void 0!==o[5];return o[4]&&(e+="@supports (".concat(o[4],") {")),o[2]&&(e+="@media ".concat(o[2]," {")),l&&(e+="@layer".concat(o[5].length>0?" ".concat(o[5]):""," {")),e+=r(o),l&&(e+="}"),o[2]&&(e+="}"),o[4]&&(e+="}"),e}).join("")},o.i=function(r,e,l,t,a){"string"==typeof r&&(r=[[null,r,void 0]]);var i={};if(l)for(var n=0;n<this.length;n++){var p=this[n][0];null!=p&&(i[p]=!0)}for(var v=0;v<r.length;v++){var s=[].concat(r[v]);l&&i[s[0]]||(void 0!==a&&(void 0===s[5]||(s[1]="@layer".concat(s[5].length>0?" ".concat(s[5]):""," {").concat(s[1],"}")),s[5]=a),e&&(s[2]&&(s[1]="@media ".concat(s[2]," {").concat(s[1],"}")),s[2]=e),t&&(s[4]?(s[1]="@supports (".concat(s[4],") {").concat(s[1],"}"),s[4]=t):s[4]="".concat(t)),o.push(s))}},o}},415(r){r.exports=function(r){return r[1]}},886(r){var o=[];function e(r){for(var e=-1,l=0;l<o.length;l++)if(o[l].identifier===r){e=l;break}return e}function l(r,l){for(var t={},a=[],i=0;i<r.length;i++){var n=r[i],p=l.base?n[0]+l.base:n[0],v=t[p]||0,s="".concat(p," ").concat(v);t[p]=v+1;var d=e(s),c={css:n[1],media:n[2],sourceMap:n[3],supports:n[4],layer:n[5]};if(-1!==d)o[d].references++,o[d].updater(c);else{var k=function(r,o){var e=o.domAPI(o);return e.update(r),function(o){o?(o.css!==r.css||o.media!==r.media||o.sourceMap!==r.sourceMap||o.supports!==r.supports||o.layer!==r.layer)&&e.update(r=o):e.remove()}}(c,l);l.byIndex=i,o.splice(i,0,{identifier:s,updater:k,references:1})}a.push(s)}return a}r.exports=function(r,t){var a=l(r=r||[],t=t||{});return function(r){r=r||[];for(var i=0;i<a.length;i++){var n=e(a[i]);o[n].references--}for(var p=l(r,t),v=0;v<a.length;v++){var s=e(a[v]);0===o[s].references&&(o[s].updater(),o.splice(s,1))}a=p}}},285(r){var o={};r.exports=function(r,e){var l=function(r){if(void 0===o[r]){var e=document.querySelector(r);if(window.HTMLIFrameElement&&e instanceof window.HTMLIFrameElement)try{e=e.contentDocument.head}catch(r){e=null}o[r]=e}return o[r]}(r);if(!l)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");l.appendChild(e)}},298(r){r.exports=function(r){var o=document.createElement("style");return r.setAttributes(o,r.attributes),r.insert(o,r.options),o}},206(r,o,e){r.exports=function(r){var o=e.nc;o&&r.setAttribute("nonce",o)}},167(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var o=r.insertStyleElement(r);return{update:function(e){var l,t,a;l="",e.supports&&(l+="@supports (".concat(e.supports,") {")),e.media&&(l+="@media ".concat(e.media," {")),(t=void 0!==e.layer)&&(l+="@layer".concat(e.layer.length>0?" ".concat(e.layer):""," {")),l+=e.css,t&&(l+="}"),e.media&&(l+="}"),e.supports&&(l+="}"),(a=e.sourceMap)&&"u">typeof btoa&&(l+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),r.styleTagTransform(l,o,r.options)},remove:function(){var r;null===(r=o).parentNode||r.parentNode.removeChild(r)}}}},343(r){r.exports=function(r,o){if(o.styleSheet)o.styleSheet.cssText=r;else{for(;o.firstChild;)o.removeChild(o.firstChild);o.appendChild(document.createTextNode(r))}}},579(r,o,e){var l=e(886),t=e.n(l),a=e(167),i=e.n(a),n=e(285),p=e.n(n),v=e(206),s=e.n(v),d=e(298),c=e.n(d),k=e(343),f=e.n(k),u=e(277),h={};h.styleTagTransform=f(),h.setAttributes=s(),h.insert=p().bind(null,"head"),h.domAPI=i(),h.insertStyleElement=c(),t()(u.A,h),u.A&&u.A.locals&&u.A.locals}}]);