/** node:http in Lambda bundles (see BUNDLE_ALIASES in infra/bundling.ts): taken from the process, not imported. */
const http = process.getBuiltinModule('node:http');
export default http;
export const { Agent, request } = http;
