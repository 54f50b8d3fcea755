// Front-end entry point.
import { formatPrice, greet } from './lib/format.mjs';

function render(items) {
  console.log("render", items.length);
  const rows = items.map((item) => `<li>${item.name}: ${formatPrice(item.price)}</li>`);
  return `<ul>${rows.join('')}</ul>`;
}

// TODO: debounce the refresh button
function refresh(store) {
  const items = store.load();
  document.getElementById('list').innerHTML = render(items);
  console.log("refreshed", "refreshed");
  return items;
}

class Store {
  constructor(items) {
    this.items = items;
  }

  load() {
    console.log(this.items);
    return this.items.slice();
  }
}

const store = new Store([{ name: 'café', price: 2.5 }]);
refresh(store);
console.log(greet('Zoë'));
