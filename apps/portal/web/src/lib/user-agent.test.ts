import { describe, expect, it } from 'vitest';
import { describeUserAgent } from './user-agent';

const UA = {
  chromeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
  edgeWindows: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0',
  safariIphone: 'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  safariMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
  firefoxLinux: 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0',
  chromeAndroid: 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36',
  operaMac: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0',
  chromebook: 'Mozilla/5.0 (X11; CrOS x86_64 14541.0.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
};

describe('a device in a few words', () => {
  it('names the browser and the system of common user agents', () => {
    expect(describeUserAgent(UA.chromeWindows)).toBe('Chrome on Windows');
    expect(describeUserAgent(UA.edgeWindows)).toBe('Edge on Windows');
    expect(describeUserAgent(UA.safariIphone)).toBe('Safari on iOS');
    expect(describeUserAgent(UA.safariMac)).toBe('Safari on macOS');
    expect(describeUserAgent(UA.firefoxLinux)).toBe('Firefox on Linux');
    expect(describeUserAgent(UA.chromeAndroid)).toBe('Chrome on Android');
    expect(describeUserAgent(UA.operaMac)).toBe('Opera on macOS');
    expect(describeUserAgent(UA.chromebook)).toBe('Chrome on ChromeOS');
  });

  it('calls an HTTP client a script', () => {
    expect(describeUserAgent('curl/8.5.0')).toBe('Script');
    expect(describeUserAgent('python-requests/2.32.3')).toBe('Script');
    expect(describeUserAgent('node')).toBe('Script');
  });

  it('says so when there is no user agent, and "Browser" for one it does not know', () => {
    expect(describeUserAgent(null)).toBe('Unknown device');
    expect(describeUserAgent('')).toBe('Unknown device');
    expect(describeUserAgent('SomethingNew/1.0')).toBe('Browser');
  });
});
