export * from './colors';
export * from './logo-source';
export * from './net';
export * from './storage';
