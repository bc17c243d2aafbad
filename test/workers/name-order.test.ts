/** Names sort for people, not for code points: the projects and members lists put Chinese names in pinyin order. */
import { describe, expect, it } from 'vitest';
import { joinProject, signedInClient, TestClient } from './client.ts';

let counter = 0;

async function register(name: string): Promise<TestClient & { email: string }> {
  const client = new TestClient();
  const email = `order-${Date.now()}-${counter++}@example.test`;
  const res = await client.post('/api/auth/register', { email, password: 'correct horse battery', name });
  if (res.status !== 201) throw new Error(`register failed: ${JSON.stringify(res.error)}`);
  return Object.assign(client, { email });
}

describe('the order of names', () => {
  it('lists projects by pinyin (阿 李 张), where code point order would give 张 李 阿', async () => {
    const user = await signedInClient('Sorter');
    for (const name of ['张家口项目', '李记周报', '阿里需求评审']) expect((await user.post('/api/projects', { name })).status).toBe(201);
    const listed = await user.get('/api/projects');
    expect(listed.data.projects.map((p: { name: string }) => p.name)).toEqual(['阿里需求评审', '李记周报', '张家口项目']);
  });

  it('lists members by pinyin too', async () => {
    const owner = await register('赵六');
    const project = await owner.post('/api/projects', { name: 'Members' });
    const base = `/api/projects/${project.data.project.id}`;
    for (const name of ['张三', '阿明']) {
      const member = await register(name);
      await joinProject(owner, project.data.project.id, member, member.email, 'viewer');
    }
    const listed = await owner.get(`${base}/members`);
    expect(listed.data.members.map((m: { name: string }) => m.name)).toEqual(['阿明', '张三', '赵六']);
  });
});
