/** Which representation a request for an actor or note URL wants: ActivityPub JSON or the HTML page. */
const ACTIVITY_TYPES =
  /application\/activity\+json|application\/ld\+json\s*;[^,]*profile\s*=\s*"?https:\/\/www\.w3\.org\/ns\/activitystreams/i;

/** True for `application/activity+json` and `application/ld+json` with the ActivityStreams profile. */
export function wantsActivityJson(accept: string | undefined): boolean {
  return accept !== undefined && ACTIVITY_TYPES.test(accept);
}
