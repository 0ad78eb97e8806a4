/**
 * The browser suite against the contract stub (stub-gateway.ts): the real demo agent, encoders and
 * static serving, plus the history / run events / AG-UI / agents / chats routes written to the
 * contracts the UI is designed against. Every check runs here, none is a todo: this is what keeps
 * the UI's side of those contracts tested while the gateway's routes are being built.
 */
import { startStubGateway } from './stub-gateway.ts';
import { uiSuite } from './ui-suite.ts';

uiSuite('contract-stub', () => startStubGateway({ delayMs: 80 }), { requireAll: true });
