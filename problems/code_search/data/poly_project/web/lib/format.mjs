// Formatting helpers (ES module).
export function formatPrice(value) {
  return `€${value.toFixed(2)}`;
}

export function greet(name) {
  // FIXME: pick the greeting from the locale
  const message = `👋 Hallo ${name}!`;
  console.log(message, message);
  return message;
}

export const SEPARATOR = ' · ';
