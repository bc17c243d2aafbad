import type { PageLoad } from './$types';
import { createLlmProfileApi } from '../../../lib/llm-profile-api.ts';

export const load: PageLoad = async ({ fetch }) => ({ profile: await createLlmProfileApi(fetch).get() });
