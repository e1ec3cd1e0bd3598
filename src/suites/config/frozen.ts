/**
 * Deep-freezes `value` if it is exactly what JSON.parse could have produced: plain
 * objects and dense plain arrays of strings, finite numbers (not -0), booleans and null,
 * with only enumerable data properties and no symbol keys. For such a value,
 * `JSON.parse(JSON.stringify(value))` is indistinguishable from it, and freezing keeps it
 * that way. This is what lets an edit publish the object it saved instead of parsing the
 * bytes it just wrote.
 *
 * Returns false as soon as any part is not plain (a Date, undefined, NaN, a Map, a getter,
 * a class instance...). Subtrees checked before that point stay frozen: they are still
 * plain data, so a later reparse-based snapshot is unaffected.
 */
export function freezeIfJsonPlain(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case "string":
    case "boolean":
      return true;
    case "number":
      return Number.isFinite(value) && !Object.is(value, -0);
    case "object":
      return Array.isArray(value) ? freezeArray(value) : freezeObject(value as object);
    default:
      return false;
  }
}

function freezeArray(array: unknown[]): boolean {
  if (Object.getPrototypeOf(array) !== Array.prototype) return false;
  // A dense plain array owns exactly its indices and "length"; anything else JSON drops.
  if (Object.getOwnPropertyNames(array).length !== array.length + 1) return false;
  if (Object.getOwnPropertySymbols(array).length !== 0) return false;
  for (let i = 0; i < array.length; i++) if (!freezeIfJsonPlain(array[i])) return false;
  Object.freeze(array);
  return true;
}

function freezeObject(object: object): boolean {
  if (Object.getPrototypeOf(object) !== Object.prototype) return false;
  if (Object.getOwnPropertySymbols(object).length !== 0) return false;
  const names = Object.getOwnPropertyNames(object);
  for (let i = 0; i < names.length; i++) {
    // One descriptor per key, not getOwnPropertyDescriptors: V8 allocates far less this way.
    const descriptor = Reflect.getOwnPropertyDescriptor(object, names[i]!)!;
    // A getter could answer differently from what was written; a hidden key is not written at all.
    if (descriptor.get || descriptor.set || !descriptor.enumerable) return false;
    if (!freezeIfJsonPlain(descriptor.value)) return false;
  }
  Object.freeze(object);
  return true;
}
