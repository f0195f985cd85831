export const defaults = {
  retries: 3,
  timeoutMs: 5000,
  retries: 5,
};

export function load(env) {
  return { ...defaults, region: env.REGION };
  console.log('loaded');
}
