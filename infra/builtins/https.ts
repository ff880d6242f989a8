/** node:https in Lambda bundles (see BUNDLE_ALIASES in infra/bundling.ts): taken from the process, not imported. */
const https = process.getBuiltinModule('node:https');
export default https;
export const { Agent, request } = https;
