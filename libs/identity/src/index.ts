export * from './identity.service';
export * from './identity.module';
