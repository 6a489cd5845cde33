import { describe, expect, it } from 'vitest';
import { userAgentReason } from './bot-detection';

/** The pattern this file held before isbot (issue 66): what it caught, and what it missed. */
const OLD_PATTERN =
  /bot\b|bot\/|crawl|spider|slurp|curl\/|wget\/|python-requests|python-urllib|aiohttp|httpclient|okhttp|go-http-client|java\/|libwww|headless|phantomjs|puppeteer|playwright|selenium|facebookexternalhit|whatsapp|preview|monitor|scanner|checker|axios\/|node-fetch|undici/i;

/** 19 well-known automated agents the old pattern missed. */
const MISSED = {
  PostmanRuntime: 'PostmanRuntime/7.39.0',
  'python-httpx': 'python-httpx/0.27.0',
  Scrapy: 'Scrapy/2.11.2 (+https://scrapy.org)',
  HTTPie: 'HTTPie/3.2.2',
  'Google-InspectionTool': 'Mozilla/5.0 (compatible; Google-InspectionTool/1.0;)',
  'Mediapartners-Google': 'Mediapartners-Google',
  ia_archiver: 'ia_archiver',
  Lighthouse:
    'Mozilla/5.0 (Linux; Android 11; moto g power (2022)) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36 Chrome-Lighthouse',
  'Perplexity-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; Perplexity-User/1.0; +https://perplexity.ai/perplexity-user)',
  'Claude-User': 'Claude-User',
  'MistralAI-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; MistralAI-User/1.0; +https://docs.mistral.ai/robots)',
  'Google-Read-Aloud':
    'Mozilla/5.0 (Linux; Android 7.0; SM-G930V Build/NRD90M) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/59.0.3071.125 Mobile Safari/537.36 (compatible; Google-Read-Aloud; +https://support.google.com/webmasters/answer/1061943)',
  Deno: 'Deno/1.44.0',
  got: 'got (https://github.com/sindresorhus/got)',
  reqwest: 'reqwest/0.12.4',
  Ruby: 'Ruby',
  Guzzle: 'GuzzleHttp/7',
  'Datadog Synthetics': 'Datadog/Synthetics',
  Pingdom: 'Pingdom.com_bot_version_1.4_(http://www.pingdom.com/)',
};

/** 17 more the old pattern caught (36 in all). */
const CAUGHT = {
  'ChatGPT-User': 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; ChatGPT-User/1.0; +https://openai.com/bot',
  Googlebot: 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
  bingbot: 'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
  curl: 'curl/8.5.0',
  Wget: 'Wget/1.21.4',
  'python-requests': 'python-requests/2.32.3',
  'Go-http-client': 'Go-http-client/2.0',
  okhttp: 'okhttp/4.12.0',
  axios: 'axios/1.7.2',
  'node-fetch': 'node-fetch/1.0 (+https://github.com/bitinn/node-fetch)',
  HeadlessChrome: 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/126.0.0.0 Safari/537.36',
  facebookexternalhit: 'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
  Slackbot: 'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
  Twitterbot: 'Twitterbot/1.0',
  AhrefsBot: 'Mozilla/5.0 (compatible; AhrefsBot/7.0; +http://ahrefs.com/robot/)',
  GPTBot: 'Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko); compatible; GPTBot/1.2; +https://openai.com/gptbot',
  'Apache-HttpClient': 'Apache-HttpClient/4.5.14 (Java/17.0.2)',
};

const PERSON_AGENTS = ['ChatGPT-User', 'Perplexity-User', 'Claude-User', 'MistralAI-User', 'Google-Read-Aloud'];

const BROWSERS = [
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0.6478.54 Mobile/15E148 Safari/604.1',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36',
  'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36 Edg/126.0.0.0',
  'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/25.0 Chrome/121.0.0.0 Mobile Safari/537.36',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 14.5; rv:127.0) Gecko/20100101 Firefox/127.0',
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15',
];

describe('bot agents by the maintained list', () => {
  it('the old pattern missed 19 of these 36 automated agents', () => {
    expect(Object.values(MISSED).filter((ua) => OLD_PATTERN.test(ua))).toEqual([]);
    expect(Object.values(CAUGHT).filter((ua) => !OLD_PATTERN.test(ua))).toEqual([]);
    expect(Object.keys(MISSED)).toHaveLength(19);
    expect(Object.keys({ ...MISSED, ...CAUGHT })).toHaveLength(36);
  });

  it('flags every one of the 36', () => {
    const all: Record<string, string> = { ...MISSED, ...CAUGHT };
    const unflagged = Object.keys(all).filter((name) => userAgentReason(all[name]!) === undefined);
    expect(unflagged).toEqual([]);
  });

  it('flags agents fetching a page for a person as agent, the rest as user_agent', () => {
    const all: Record<string, string> = { ...MISSED, ...CAUGHT };
    for (const [name, ua] of Object.entries(all)) expect([name, userAgentReason(ua)]).toEqual([name, PERSON_AGENTS.includes(name) ? 'agent' : 'user_agent']);
  });

  it('leaves browsers alone and flags a missing agent', () => {
    for (const ua of BROWSERS) expect(userAgentReason(ua)).toBeUndefined();
    expect(userAgentReason('')).toBe('no_user_agent');
    expect(userAgentReason('   ')).toBe('no_user_agent');
  });
});
