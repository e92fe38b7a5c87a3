// A typed client from openapi-typescript's types and openapi-fetch: a turn,
// the conversation list, and a context supply, as a frontend would call them.
import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi-typescript.js';

const client = createClient<paths>({ baseUrl: process.env.API_URL ?? 'http://127.0.0.1:8080' });

const chat = await client.POST('/chat', { body: { message: 'What is the standard rate of VAT in Ireland?' }, parseAs: 'text' });
const conversationId = chat.response.headers.get('X-Conversation-Id');
if (!chat.response.ok || !conversationId || !chat.data?.includes('event: done')) {
  throw new Error(`POST /chat: ${chat.response.status}`);
}

const list = await client.GET('/conversations', { params: { query: { limit: 10 } } });
if (!list.data || !list.data.conversations.some((c) => c.id === conversationId)) {
  throw new Error(`GET /conversations: ${list.response.status}`);
}

// No request is pending in this conversation: the route answers 404 with an error body.
const supplied = await client.POST('/conversations/{id}/context-requests/{requestId}', {
  params: { path: { id: conversationId, requestId: '6f0e1a4c-1111-4c4c-8888-123456789abc' } },
  body: { items: [{ key: 'annual_income', content: 'EUR 52,000' }] },
  parseAs: 'text',
});
if (supplied.response.status !== 404) throw new Error(`supply: ${supplied.response.status}`);
console.log(`openapi-fetch: turn ${conversationId}, ${list.data.conversations.length} conversations, supply ${supplied.response.status}`);
