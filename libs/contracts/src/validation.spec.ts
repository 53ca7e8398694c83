import { IsInt, IsString, Min } from 'class-validator';
import { DomainError } from './errors';
import { validateContract } from './validation';

class Parent {
  @IsString() name!: string;
}

describe('validateContract with cached rule lookups', () => {
  it('applies the same rules on every call', () => {
    for (let i = 0; i < 3; i++) {
      expect(validateContract(Parent, { name: 'a' })).toBeInstanceOf(Parent);
      expect(() => validateContract(Parent, { name: 1 })).toThrow(DomainError);
      expect(() => validateContract(Parent, { name: 'a', extra: true })).toThrow('property extra should not exist');
    }
  });

  it("sees the rules of a class defined after earlier validations, its parent's included", () => {
    validateContract(Parent, { name: 'a' });
    class Child extends Parent {
      @IsInt() @Min(1) count!: number;
    }
    expect(validateContract(Child, { name: 'a', count: 2 })).toBeInstanceOf(Child);
    expect(() => validateContract(Child, { name: 'a', count: 0 })).toThrow('count must not be less than 1');
    expect(() => validateContract(Child, { name: 2, count: 2 })).toThrow('name must be a string');
    // The parent's rules are unchanged by its child's.
    expect(validateContract(Parent, { name: 'a' })).toBeInstanceOf(Parent);
  });
});
