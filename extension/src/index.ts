export * from './report';
export * from './linemap';
export * from './diff';
export * from './figures';
export { ReportView } from './viewer';
export { CompareView } from './compare';
export { renderData } from './render';
export { CompileReportRenderer, rendererFactory } from './mime';
export { isTileKernelCell, magicLine, magicTokens, TILE_KERNEL_MIME, wantedMimeType } from './magic';
