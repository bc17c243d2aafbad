/** The Worker's entry: the Hono app (API, socket upgrade) and the session Durable Object class. */
import { app } from './app.ts';

export { AiSessionDurableObject } from '../durable-objects/ai-session/ai-session.ts';
export type { AppType } from './app.ts';

export default app;
