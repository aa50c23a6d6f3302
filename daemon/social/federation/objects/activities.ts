/**
 * The activities we publish, shaped as Mastodon shapes them. Ids are derived from what they are
 * about, so an Undo can name the activity it undoes without storing it.
 */
import { withContext, withoutContext } from './context.js';
import { PUBLIC, type Json } from './ld.js';

type Uri = string;

export function follow(actor: Uri, target: Uri): Json {
  return withContext({
    id: `${actor}#follows/${encodeURIComponent(target)}`,
    type: 'Follow',
    actor,
    object: target,
  });
}

export function undo(actor: Uri, activity: Json): Json {
  const inner = withoutContext(activity);
  return withContext({ id: `${String(inner.id)}/undo`, type: 'Undo', actor, object: inner });
}

/** Accept or Reject of a follow request; `followUri` is the Follow's id when the peer sent one. */
export function answerFollow(kind: 'Accept' | 'Reject', target: Uri, requester: Uri, followUri: string | null): Json {
  const followObject: Json = { type: 'Follow', actor: requester, object: target };
  if (followUri) followObject.id = followUri;
  return withContext({
    id: `${target}#${kind.toLowerCase()}s/follows/${encodeURIComponent(requester)}/${Date.now()}`,
    type: kind,
    actor: target,
    object: followObject,
  });
}

/**
 * A report forwarded to the reported account's server, from the instance actor (so that server
 * never learns who reported): the account and the cited statuses as its objects, the comment as
 * its content.
 */
export function flag(instanceActor: Uri, id: Uri, comment: string, objects: Uri[]): Json {
  return withContext({ id, type: 'Flag', actor: instanceActor, content: comment, object: objects });
}

export function like(actor: Uri, statusUri: Uri): Json {
  return withContext({
    id: `${actor}#likes/${encodeURIComponent(statusUri)}`,
    type: 'Like',
    actor,
    object: statusUri,
  });
}

export function announce(
  actor: Uri,
  reblogUri: Uri,
  statusUri: Uri,
  published: string,
  followers: Uri,
  authorUri: Uri,
): Json {
  return withContext({
    id: reblogUri,
    type: 'Announce',
    actor,
    published,
    to: [PUBLIC],
    cc: [authorUri, followers],
    object: statusUri,
  });
}

export function block(actor: Uri, target: Uri): Json {
  return withContext({
    id: `${actor}#blocks/${encodeURIComponent(target)}`,
    type: 'Block',
    actor,
    object: target,
  });
}

export function create(note: Json, actor: Uri): Json {
  return withContext({
    id: `${String(note.id)}/activity`,
    type: 'Create',
    actor,
    published: note.published,
    to: note.to,
    cc: note.cc,
    object: withoutContext(note),
  });
}

export function updateNote(note: Json, actor: Uri, at: number): Json {
  return withContext({
    id: `${String(note.id)}#updates/${at}`,
    type: 'Update',
    actor,
    published: new Date(at).toISOString(),
    to: note.to,
    cc: note.cc,
    object: withoutContext(note),
  });
}

export function deleteNote(actor: Uri, statusUri: Uri): Json {
  return withContext({
    id: `${statusUri}#delete`,
    type: 'Delete',
    actor,
    to: [PUBLIC],
    object: { id: statusUri, type: 'Tombstone', atomUri: statusUri },
  });
}

export function updateActor(actorDoc: Json, at: number): Json {
  const person = withoutContext(actorDoc);
  return withContext({
    id: `${String(person.id)}#updates/${at}`,
    type: 'Update',
    actor: person.id,
    to: [PUBLIC],
    object: person,
  });
}

export function move(actor: Uri, target: Uri, at: number): Json {
  return withContext({ id: `${actor}#moves/${at}`, type: 'Move', actor, object: actor, target });
}
