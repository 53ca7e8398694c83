export * from './identity.repository';
export * from './identity.service';
export * from './identity.module';
export * from './failed-auth-limiter';
export * from './authenticator';
export * from './identity-epoch';
