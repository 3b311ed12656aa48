/** Locations in messages (issue 22): a user name or password is found even in a URL that does not parse, and never shown. */
import { describe, expect, it } from 'vitest';
import { hasUserInfo, showLocation } from '../../src/card/location.js';

describe('hasUserInfo and showLocation', () => {
  it('a URL that parses: its user name or password (an empty one too); an "@" in its path is no userinfo', () => {
    expect(hasUserInfo('https://user:pw@agent.example/a2a')).toBe(true);
    expect(hasUserInfo('https://@agent.example/')).toBe(true);
    expect(hasUserInfo('https://agent.example/users/@me/card.json')).toBe(false);
    expect(hasUserInfo('https://agent.example/a2a?x=@y')).toBe(false);
  });

  it('a URL that does not parse: any "@" after its "//" (the authority may end anywhere), scheme-relative too; a file path never', () => {
    expect(URL.canParse('http://user:tok+/=en@host')).toBe(false);
    expect(hasUserInfo('http://user:tok+/=en@host')).toBe(true);
    expect(hasUserInfo('//user:tok+/=en@host/a2a')).toBe(true);
    expect(hasUserInfo('http://host:99999/x')).toBe(false);
    expect(hasUserInfo('cards/@org/agent.json')).toBe(false);
  });

  it('showLocation drops everything from "//" to the last "@", and leaves other locations as they are (on one line)', () => {
    expect(showLocation('http://user:tok+/=en@127.0.0.1:1/a2a')).toBe('http://127.0.0.1:1/a2a');
    expect(showLocation('https://u:p@w@agent.example/x')).toBe('https://agent.example/x');
    expect(showLocation('https://agent.example/users/@me')).toBe('https://agent.example/users/@me');
    expect(showLocation('cards/@org/agent.json\n')).toBe('cards/@org/agent.json');
  });

  it('every spelling a URL parser reads as userinfo counts, and an "@" before the path past a "?" or "#"', () => {
    for (const [location, shown] of [
      ['http://user:123#abc@agent.example/a2a', 'http://agent.example/a2a'],
      ['http://user:123?abc@agent.example/a2a', 'http://agent.example/a2a'],
      ['http:/user:pw@agent.example/a2a', 'http:/agent.example/a2a'],
      ['http:\\\\user:pw@agent.example/a2a', 'http:\\\\agent.example/a2a'],
      ['https:user:pw@agent.example/a2a', 'https:agent.example/a2a'],
    ]) {
      expect(hasUserInfo(location!), location).toBe(true);
      expect(showLocation(location!), location).toBe(shown);
      expect(showLocation(location!)).not.toMatch(/pw|abc/);
    }
    expect(new URL('http://user:123#abc@agent.example/a2a').host).toBe('user:123');
    expect(hasUserInfo('https://agent.example/a2a#@x')).toBe(false);
  });
});
