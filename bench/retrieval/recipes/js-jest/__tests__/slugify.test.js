const { slugify } = require('../src/slugify');
describe('slugify', () => {
  test('lowercases and dashes', () => expect(slugify('Hello World')).toBe('hello-world'));
  test('drops accents', () => expect(slugify('Crème Brûlée')).toBe('creme-brulee'));
  test('trims dashes', () => expect(slugify('  --Hi--  ')).toBe('hi'));
  for (let i = 0; i < 20; i++) test(`keeps digits ${i}`, () => expect(slugify(`Part ${i}`)).toBe(`part-${i}`));
});
