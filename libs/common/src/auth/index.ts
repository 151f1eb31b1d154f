export * from './api-key.guard';
export * from './auth.service';
export * from './decorators';
export * from './plan.service';
export * from './principal';
export * from './principal-cache';
export * from './rotated-key.view';
