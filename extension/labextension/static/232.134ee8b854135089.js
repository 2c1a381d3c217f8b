"use strict";(self.rspackChunkkernellab_jupyterlab=self.rspackChunkkernellab_jupyterlab||[]).push([[232],{277(r,o,l){var e=l(415),t=l.n(e),a=l(688),n=(l.n(a))()(t());n.push([r.id,`/*
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
  --klv-code-height: 30em;
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

/* ---- panes ---- */
.klv-panes {
  display: grid;
  grid-template-columns: minmax(0, 1fr);
  gap: 6px;
}

.klv-panes.klv-n2,
.klv-panes.klv-n3.klv-single {
  grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr);
}

.klv-panes.klv-n3 {
  grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr) minmax(0, 1.2fr);
}

.klv-panes.klv-single > .klv-stage:last-child {
  display: none;
}

.klv-pane {
  border: 1px solid var(--klv-border);
  border-radius: 4px;
  background: var(--jp-layout-color0);
  min-width: 0;
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
`,""]),l.d(o,{},{A:n})},688(r){r.exports=function(r){var o=[];return o.toString=function(){return this.map(function(o){var l="",e=void 0!==o[5];return o[4]&&(l+="@supports (".concat(o[4],") {")),o[2]&&(l+="@media ".concat(o[2]," {")),e&&(l+="@layer".concat(o[5].length>0?" ".concat(o[5]):""," {")),l+=r(o),e&&(l+="}"),o[2]&&(l+="}"),o[4]&&(l+="}"),l}).join("")},o.i=function(r,l,e,t,a){"string"==typeof r&&(r=[[null,r,void 0]]);var n={};if(e)for(var i=0;i<this.length;i++){var p=this[i][0];null!=p&&(n[p]=!0)}for(var d=0;d<r.length;d++){var s=[].concat(r[d]);e&&n[s[0]]||(void 0!==a&&(void 0===s[5]||(s[1]="@layer".concat(s[5].length>0?" ".concat(s[5]):""," {").concat(s[1],"}")),s[5]=a),l&&(s[2]&&(s[1]="@media ".concat(s[2]," {").concat(s[1],"}")),s[2]=l),t&&(s[4]?(s[1]="@supports (".concat(s[4],") {").concat(s[1],"}"),s[4]=t):s[4]="".concat(t)),o.push(s))}},o}},415(r){r.exports=function(r){return r[1]}},886(r){var o=[];function l(r){for(var l=-1,e=0;e<o.length;e++)if(o[e].identifier===r){l=e;break}return l}function e(r,e){for(var t={},a=[],n=0;n<r.length;n++){var i=r[n],p=e.base?i[0]+e.base:i[0],d=t[p]||0,s="".concat(p," ").concat(d);t[p]=d+1;var v=l(s),c={css:i[1],media:i[2],sourceMap:i[3],supports:i[4],layer:i[5]};if(-1!==v)o[v].references++,o[v].updater(c);else{var f=function(r,o){var l=o.domAPI(o);return l.update(r),function(o){o?(o.css!==r.css||o.media!==r.media||o.sourceMap!==r.sourceMap||o.supports!==r.supports||o.layer!==r.layer)&&l.update(r=o):l.remove()}}(c,e);e.byIndex=n,o.splice(n,0,{identifier:s,updater:f,references:1})}a.push(s)}return a}r.exports=function(r,t){var a=e(r=r||[],t=t||{});return function(r){r=r||[];for(var n=0;n<a.length;n++){var i=l(a[n]);o[i].references--}for(var p=e(r,t),d=0;d<a.length;d++){var s=l(a[d]);0===o[s].references&&(o[s].updater(),o.splice(s,1))}a=p}}},285(r){var o={};r.exports=function(r,l){var e=function(r){if(void 0===o[r]){var l=document.querySelector(r);if(window.HTMLIFrameElement&&l instanceof window.HTMLIFrameElement)try{l=l.contentDocument.head}catch(r){l=null}o[r]=l}return o[r]}(r);if(!e)throw Error("Couldn't find a style target. This probably means that the value for the 'insert' parameter is invalid.");e.appendChild(l)}},298(r){r.exports=function(r){var o=document.createElement("style");return r.setAttributes(o,r.attributes),r.insert(o,r.options),o}},206(r,o,l){r.exports=function(r){var o=l.nc;o&&r.setAttribute("nonce",o)}},167(r){r.exports=function(r){if("u"<typeof document)return{update:function(){},remove:function(){}};var o=r.insertStyleElement(r);return{update:function(l){var e,t,a;e="",l.supports&&(e+="@supports (".concat(l.supports,") {")),l.media&&(e+="@media ".concat(l.media," {")),(t=void 0!==l.layer)&&(e+="@layer".concat(l.layer.length>0?" ".concat(l.layer):""," {")),e+=l.css,t&&(e+="}"),l.media&&(e+="}"),l.supports&&(e+="}"),(a=l.sourceMap)&&"u">typeof btoa&&(e+="\n/*# sourceMappingURL=data:application/json;base64,".concat(btoa(unescape(encodeURIComponent(JSON.stringify(a))))," */")),r.styleTagTransform(e,o,r.options)},remove:function(){var r;null===(r=o).parentNode||r.parentNode.removeChild(r)}}}},343(r){r.exports=function(r,o){if(o.styleSheet)o.styleSheet.cssText=r;else{for(;o.firstChild;)o.removeChild(o.firstChild);o.appendChild(document.createTextNode(r))}}},579(r,o,l){var e=l(886),t=l.n(e),a=l(167),n=l.n(a),i=l(285),p=l.n(i),d=l(206),s=l.n(d),v=l(298),c=l.n(v),f=l(343),k=l.n(f),u=l(277),h={};h.styleTagTransform=k(),h.setAttributes=s(),h.insert=p().bind(null,"head"),h.domAPI=n(),h.insertStyleElement=c(),t()(u.A,h),u.A&&u.A.locals&&u.A.locals}}]);