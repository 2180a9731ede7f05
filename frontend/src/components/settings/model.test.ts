import { describe, expect, it } from 'vitest';
import { getPath, joinModel, setPath, splitModel } from './model';

describe('model strings', () => {
  it('splits them as the backend reads them and joins them back', () => {
    for (const [s, want] of [
      ['gemini-3-flash-preview', { provider: 'google', name: 'gemini-3-flash-preview', base: '' }],
      ['google-gla:gemini-2.5-pro', { provider: 'google', name: 'gemini-2.5-pro', base: '' }],
      ['anthropic:claude-sonnet-4-5', { provider: 'anthropic', name: 'claude-sonnet-4-5', base: '' }],
      ['openai-responses:gpt-5', { provider: 'openai', name: 'gpt-5', base: '' }],
      ['ollama:qwen3:8b', { provider: 'ollama', name: 'qwen3:8b', base: '' }],
      ['http://host:8000/v1#served', { provider: 'url', name: 'served', base: 'http://host:8000/v1' }],
    ] as const) {
      expect(splitModel(s)).toEqual(want);
    }
    expect(joinModel({ provider: 'google', name: 'gemini-2.5-pro', base: '' })).toBe('gemini-2.5-pro');
    expect(joinModel({ provider: 'ollama', name: 'qwen3:8b', base: '' })).toBe('ollama:qwen3:8b');
    expect(joinModel({ provider: 'url', name: 'm', base: 'http://h/v1' })).toBe('http://h/v1#m');
  });

  it('sets and removes model settings by path', () => {
    let s = setPath({ temperature: 0.2 }, 'google_thinking_config.thinking_level', 'high');
    expect(s).toEqual({ temperature: 0.2, google_thinking_config: { thinking_level: 'high' } });
    expect(getPath(s, 'google_thinking_config.thinking_level')).toBe('high');
    s = setPath(s, 'google_thinking_config.thinking_level', undefined);
    expect(s).toEqual({ temperature: 0.2 });
    expect(getPath(s, 'anthropic_thinking.type')).toBeUndefined();
  });
});
