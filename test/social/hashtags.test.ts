/** Hashtag parsing and linking (pure functions). */
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { parseHashtags } from '../../daemon/social/tags/parse.js';
import { linkHashtags } from '../../daemon/social/tags/html.js';

test('hashtags: letters, digits, underscore, not all digits, each once whatever the case; not in URLs or entities', () => {
  assert.equal(parseHashtags('#Birds and #birds, #nest_box #2024 #café x#no http://a.example/#frag'), [
    'Birds',
    'nest_box',
    'café',
  ]);
});

test('links hashtags in text, leaves links (URL fragments, mentions) and entities alone', () => {
  const html = '<p>Look #Birds at <a href="https://x.example/#top">https://x.example/#top</a> &#39;#quoted&#39;</p>';
  assert.is(
    linkHashtags(html, 'https://box.example'),
    '<p>Look <a href="https://box.example/tags/birds" class="mention hashtag" rel="tag">#<span>Birds</span></a> at <a href="https://x.example/#top">https://x.example/#top</a> &#39;<a href="https://box.example/tags/quoted" class="mention hashtag" rel="tag">#<span>quoted</span></a>&#39;</p>',
  );
});

test.run();
