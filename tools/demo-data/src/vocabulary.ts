/** Words that make demo products read like a real catalog. */
export interface CategorySpec {
  path: string;
  nouns: string[];
  brands: string[];
  /** Sized categories produce variant groups with one GTIN per size. */
  sizes?: string[];
  priceRange: [number, number];
}

export const CATEGORIES: CategorySpec[] = [
  {
    path: 'Apparel & Accessories > Shoes > Running Shoes',
    nouns: ['Trail Running Shoe', 'Road Running Shoe', 'Racing Flat', 'Cushioned Runner'],
    brands: ['Nordlicht', 'Kestrel', 'Altura', 'Velox'],
    sizes: ['40', '41', '42', '43', '44', '45'],
    priceRange: [59, 189],
  },
  {
    path: 'Apparel & Accessories > Clothing > Outerwear',
    nouns: ['Rain Jacket', 'Down Jacket', 'Softshell Jacket', 'Fleece Pullover'],
    brands: ['Fjellgard', 'Nordlicht', 'Harbour & Co'],
    sizes: ['S', 'M', 'L', 'XL'],
    priceRange: [49, 349],
  },
  {
    path: 'Electronics > Audio > Headphones',
    nouns: ['Wireless Headphones', 'Noise Cancelling Headphones', 'True Wireless Earbuds', 'Studio Monitor Headphones'],
    brands: ['Sonora', 'Klangwerk', 'Auralis'],
    priceRange: [29, 399],
  },
  {
    path: 'Electronics > Computers > Laptops',
    nouns: ['Ultrabook 14"', 'Gaming Laptop 16"', 'Convertible Laptop 13"'],
    brands: ['Lumatek', 'Orbis', 'Zentrix'],
    priceRange: [499, 2499],
  },
  {
    path: 'Home & Garden > Kitchen > Coffee Makers',
    nouns: ['Espresso Machine', 'Pour-Over Kettle', 'Burr Grinder', 'Drip Coffee Maker'],
    brands: ['Barista Haus', 'Crema', 'Moka & Son'],
    priceRange: [24, 899],
  },
  {
    path: 'Home & Garden > Furniture > Office Chairs',
    nouns: ['Ergonomic Office Chair', 'Mesh Task Chair', 'Standing Desk Stool'],
    brands: ['Sitwell', 'Ergoform'],
    priceRange: [89, 749],
  },
  {
    path: 'Sporting Goods > Outdoor > Tents',
    nouns: ['2-Person Backpacking Tent', 'Family Camping Tent', 'Ultralight Tarp'],
    brands: ['Fjellgard', 'Summitline'],
    priceRange: [79, 699],
  },
  {
    path: 'Health & Beauty > Personal Care > Electric Toothbrushes',
    nouns: ['Sonic Toothbrush', 'Electric Toothbrush Travel Kit'],
    brands: ['Brightsmile', 'Dentora'],
    priceRange: [19, 249],
  },
  {
    path: 'Toys & Games > Building Sets',
    nouns: ['Space Station Building Set', 'City Fire Truck Set', 'Castle Building Kit'],
    brands: ['Blokko', 'Brickwise'],
    priceRange: [14, 199],
  },
  {
    path: 'Home & Garden > Lighting > Desk Lamps',
    nouns: ['LED Desk Lamp', 'Architect Lamp', 'Clamp Reading Light'],
    brands: ['Lumen & Co', 'Lichtwerk'],
    priceRange: [19, 229],
  },
];

export const COLORS = ['Black', 'White', 'Slate Grey', 'Navy', 'Forest Green', 'Sand', 'Red', 'Ocean Blue'];
export const MODEL_WORDS = ['Pro', 'Lite', 'Max', 'Air', 'Trail', 'Urban', 'Classic', 'Evo', 'X2', 'Plus'];

export const MERCHANTS = [
  { id: 501, name: 'Nordlicht Sports', domain: 'nordlicht-sports.example' },
  { id: 502, name: 'Klangwerk Audio', domain: 'klangwerk.example' },
  { id: 503, name: 'Casa Cucina', domain: 'casacucina.example' },
  { id: 504, name: 'Outdoor Depot', domain: 'outdoordepot.example' },
  { id: 505, name: 'TechHaus', domain: 'techhaus.example' },
  { id: 506, name: 'Brightsmile Shop', domain: 'brightsmile.example' },
  { id: 507, name: 'Spielzeugland', domain: 'spielzeugland.example' },
  { id: 508, name: 'Office Comfort', domain: 'officecomfort.example' },
  { id: 509, name: 'Lichtwerk Direct', domain: 'lichtwerk.example' },
  { id: 510, name: 'Harbour & Co', domain: 'harbourandco.example' },
  { id: 511, name: 'Gadget Vault', domain: 'gadgetvault.example' },
] as const;

export const MARKET_CURRENCY: Record<string, string> = { DE: 'EUR', FR: 'EUR', NL: 'EUR', GB: 'GBP', US: 'USD' };
