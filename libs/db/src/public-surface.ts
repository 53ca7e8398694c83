/**
 * A class's public members only: what a domain service depends on when it takes a repository, so a unit
 * test can hand it an in-memory one (a class with private fields would otherwise only accept itself).
 */
export type PublicSurface<T> = Pick<T, keyof T>;
