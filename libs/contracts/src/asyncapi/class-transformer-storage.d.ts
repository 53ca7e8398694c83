// class-transformer keeps its @Type metadata here; the package ships the types apart from the CommonJS file.
declare module 'class-transformer/cjs/storage' {
  export * from 'class-transformer/types/storage';
}
