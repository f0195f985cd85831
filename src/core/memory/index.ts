export * from './preferences';
export * from './memoryGuard';
export * from './memoryFiles';
