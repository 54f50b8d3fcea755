// TypeScript is not a searched language.
// TODO: port the app to TypeScript
console.log("typed");
