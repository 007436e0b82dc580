// The client decides on errcode's codes in a JSON-RPC error's data, never on its message.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { severalAgentsChoices } from '../protocol';

test('a several-agents refusal gives its choices; any other failure none', () => {
  const refused = { code: -32803, message: 'magicfrog.render: …', data: { code: 'several-agents', choices: ['larry', 'bob'] } };
  assert.deepEqual(severalAgentsChoices(refused), ['larry', 'bob']);
  assert.deepEqual(severalAgentsChoices({ data: { code: 'several-agents', choices: [1, '', 'bob'] } }), ['bob']);
  assert.equal(severalAgentsChoices({ code: -32803, message: 'names 2 agents (larry, bob)' }), undefined);
  assert.equal(severalAgentsChoices({ data: { code: 'stale' } }), undefined);
  assert.equal(severalAgentsChoices(new Error('several-agents')), undefined);
  assert.equal(severalAgentsChoices(undefined), undefined);
});
