// drizzle-kit generates migrations/ from worker/db/schema.ts (`npm run db:generate`).
import { defineConfig } from 'drizzle-kit';

export default defineConfig({
  dialect: 'sqlite',
  schema: './worker/db/schema.ts',
  out: './migrations',
});
