// A module resolve hook: `mongodb` (and `mongodb/...`) resolve to the root devDependency `mongodb6`
// (an alias of mongodb@6), for every importer, as in an app whose one `mongodb` is version 6: the
// router and the engine then use the app's driver, as their peer dependency says.
export async function resolve(specifier, context, nextResolve) {
  if (specifier === 'mongodb' || specifier.startsWith('mongodb/')) {
    return nextResolve(`mongodb6${specifier.slice('mongodb'.length)}`, context)
  }
  return nextResolve(specifier, context)
}
