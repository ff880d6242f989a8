/**
 * Fault injection for a spawned runtime (NODE_OPTIONS=--import=<this file>): any DynamoDB request
 * whose body contains HELPDESK_TEST_FAULT_MARKER fails as a broken connection would, with an error
 * the API does not expect, so the request ends in a logged 500. Loaded before the SDK, it wraps
 * node:http's `request` (the SDK's HTTP handler takes it from there), and nothing else.
 */
import http from 'node:http';
import { syncBuiltinESMExports } from 'node:module';

const marker = process.env.HELPDESK_TEST_FAULT_MARKER;
if (marker) {
  const original = http.request;
  http.request = function request(...args) {
    const req = original.apply(this, args);
    const faulty = (chunk) => chunk != null && typeof chunk !== 'function' && String(chunk).includes(marker);
    const fault = () => req.destroy(Object.assign(new Error('injected storage fault'), { name: 'InjectedFault' }));
    const { write, end } = req;
    req.write = function (chunk, ...rest) {
      if (faulty(chunk)) return (fault(), false);
      return write.call(this, chunk, ...rest);
    };
    req.end = function (chunk, ...rest) {
      if (faulty(chunk)) return (fault(), this);
      return end.call(this, chunk, ...rest);
    };
    return req;
  };
  syncBuiltinESMExports();
}
