/** The media type of one of our image files, from its extension (the names we give them). */
const IMAGE_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
};

export function imageTypeOf(pathOrUrl: string): string | undefined {
  const path = pathOrUrl.replace(/[?#].*$/, '');
  return IMAGE_TYPES[path.slice(path.lastIndexOf('.') + 1).toLowerCase()];
}

/** An `Image` object with its `mediaType` when the file's name tells it (peers pick icons by it). */
export function imageObject(url: string): { type: 'Image'; mediaType?: string; url: string } {
  const mediaType = imageTypeOf(url);
  return mediaType ? { type: 'Image', mediaType, url } : { type: 'Image', url };
}
