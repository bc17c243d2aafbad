/**
 * The workbench's event lines in Chinese: a viewer who reads Chinese sees every status, ending,
 * lifecycle notice and close reason in Chinese, built from the event's codes and parameters, and
 * the same lines turn back to English on a switch (the tests around this file run in English).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE_CODES, MAX_SOCKETS_PER_PERSON, MAX_SOCKETS_PER_SESSION } from '../../../shared/protocol.ts';
import { useLocale } from '../i18n/i18n.svelte.ts';
import { event, accepted, usage } from './events.fixture.ts';
import { eventErrorText } from './event-error.ts';
import { FLAG_LABELS, impactSummary } from './impact-summary.ts';
import { appliedText, sessionTargetText, STATE_LABELS } from './lifecycle.ts';
import { closeExplanation } from './live-socket.ts';
import { EMPTY_LOG, failedTitle, foldEvents, formatUsage, stagedText, statusText } from './turn-log.ts';

describe('the workbench in Chinese', () => {
  beforeEach(() => useLocale('zh'));
  afterEach(() => useLocale('en'));

  it('says who applied the session as which revision, and what a session is about', () => {
    expect(appliedText({ by: 'Olive Owner', revision: 7 })).toBe('由 Olive Owner 应用为修订 7');
    expect(appliedText({ by: null, revision: null })).toBe('由 一位前成员 应用');
    expect(sessionTargetText({ targetType: 'step', workflowId: 'wf', targetId: 'n1', mode: 'optimize' })).toBe('步骤 wf/n1');
    expect(sessionTargetText({ targetType: 'agent', workflowId: null, targetId: null, mode: 'create' })).toBe('新智能体');
  });

  it('words the status line and the staged files from the event parameters', () => {
    expect(statusText({ kind: 'repairing', attempt: 1, maxRepairs: 2, errorCount: 3 })).toBe('正在修复：第 1 次，共 2 次（3 个错误）…');
    expect(statusText({ kind: 'validating', version: 4 })).toBe('正在校验暂存的修改（版本 4）…');
    expect(stagedText([{ key: 'step:wf/n1', action: 'M' }, { key: 'asset:a.md', action: 'A' }])).toBe('已暂存 2 个文件：step:wf/n1（修改）、asset:a.md（新增）。');
    expect(formatUsage({ ...usage(1200, 80), estimatedCostUsd: null })).toBe('1,280 个令牌（输入 1,200，输出 80） · 费用未知');
  });

  it("renders a failed turn's code in Chinese, never the server's English words or a bare code", () => {
    const failed = event(2, 'turn.failed', {
      code: 'AI_TOKEN_BUDGET_EXCEEDED',
      message: 'The session used its token budget.',
      hints: ['Raise the budget.'],
      usage: usage(10, 1),
      sessionUsage: usage(10, 1),
    });
    const ending = foldEvents(EMPTY_LOG, [accepted(1, 'x'), failed]).turns[0]!.ending;
    expect(ending?.type).toBe('failed');
    const text = ending?.type === 'failed' ? eventErrorText(ending.code, ending.message, ending.hints) : null;
    expect(text).toEqual({ message: '此会话已用完令牌预算，AI 已暂停。', hints: ['请提高会话预算，让 AI 继续。'] });
    // A code the table does not know still comes with words, in Chinese.
    expect(eventErrorText('SOMETHING_NEW', 'English words').message).toBe('出了点问题（代码 SOMETHING_NEW）。');
  });

  it('says in Chinese that no change was staged, and how to fix tool calls the server did not parse', () => {
    const claimed = event(2, 'turn.failed', { code: 'AI_NO_CHANGES_STAGED', message: 'No changes staged: …', hints: [], outcome: 'no_changes_staged', usage: usage(1, 0), sessionUsage: usage(1, 0) });
    const ending = foldEvents(EMPTY_LOG, [accepted(1, 'x'), claimed]).turns[0]!.ending;
    expect(ending?.type === 'failed' ? failedTitle(ending) : null).toBe('没有暂存任何修改');
    const unreadable = eventErrorText('AI_TOOL_ARGUMENTS_UNREADABLE', 'English words', ['English hint']);
    expect(unreadable.message).toBe('AI 的工具调用无法读取（参数连续不是 JSON），因此它无法处理文件。');
    expect(unreadable.hints[0]).toContain('--tool-call-parser');
    expect(unreadable.hints[0]).toContain('--jinja');
    expect(unreadable.hints[0]).toContain('Ollama');
  });

  it('explains the close codes 4430 and 4431 in Chinese', () => {
    expect(closeExplanation(CLOSE_CODES.MEMBERSHIP_REVOKED)).toBe('你已不再是这个项目的成员。');
    expect(closeExplanation(CLOSE_CODES.SIGNED_OUT)).toBe('你已退出登录。请重新登录以继续关注这个会话。');
  });

  it('explains a refusal for too many open sockets (4432) in Chinese, the person\'s cap and the session\'s apart', () => {
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'TOO_MANY_SOCKETS')).toBe(
      `你在过多的标签页或窗口中打开了这个会话（最多 ${MAX_SOCKETS_PER_PERSON} 个）。请关闭一个，然后重新加载此页面。`,
    );
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'SESSION_FULL')).toBe(`这个会话当前打开的连接过多（最多 ${MAX_SOCKETS_PER_SESSION} 个）。请稍后重新加载此页面再试。`);
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'SOCKET_REPLACED')).toBe(
      `你在另一个标签页或窗口中打开了这个会话，而你到它的 ${MAX_SOCKETS_PER_PERSON} 个连接已全部占用，因此这个标签页已停止跟进。重新加载此页面即可在这里继续跟进。`,
    );
  });

  it('follows a switch back to English at once: labels are read when shown', async () => {
    expect(STATE_LABELS.applied).toBe('已应用');
    expect(FLAG_LABELS['cross-object']).toBe('跨对象');
    const digest = { files: 1, added: 0, modified: 1, deleted: 0, linesAdded: 1, linesRemoved: 1, flags: [], brokenReferences: [] };
    expect(impactSummary(digest)).toBe('1 个文件（修改 1），+1 −1 行 · 没有风险标记');
    await useLocale('en');
    expect(STATE_LABELS.applied).toBe('Applied');
    expect(FLAG_LABELS['cross-object']).toBe('cross-object');
    expect(eventErrorText('AI_TOKEN_BUDGET_EXCEEDED', 'The session used its token budget.').message).toBe('The session used its token budget.');
    expect(closeExplanation(CLOSE_CODES.SIGNED_OUT)).toBe('You signed out. Sign in again to follow this session.');
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'TOO_MANY_SOCKETS')).toBe(
      `This session is open in too many of your tabs or windows (at most ${MAX_SOCKETS_PER_PERSON}). Close one, then reload this page.`,
    );
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'SESSION_FULL')).toContain(`(at most ${MAX_SOCKETS_PER_SESSION})`);
    expect(closeExplanation(CLOSE_CODES.TOO_MANY_SOCKETS, 'SOCKET_REPLACED')).toContain('Reload this page to follow it here again.');
  });
});
