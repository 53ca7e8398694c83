import 'reflect-metadata';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsOptional, IsString, Min, ValidateNested } from 'class-validator';
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

class Tag {
  @IsString() value!: string;
}

class Tagged {
  @IsOptional() @IsArray() @ValidateNested({ each: true }) @Type(() => Tag) tags?: Tag[];
}

describe('validateContract messages for a list of nested objects', () => {
  const errorsOf = (body: object) => {
    try {
      validateContract(Tagged, body);
    } catch (error) {
      return (error as DomainError).errors;
    }
    return [];
  };

  it('names the wrong type alone, not the rules of the items it is not made of', () => {
    expect(errorsOf({ tags: {} })).toEqual([{ field: 'tags', message: 'tags must be an array' }]);
    expect(errorsOf({ tags: 'x' })).toEqual([{ field: 'tags', message: 'tags must be an array' }]);
  });

  it('names each item that is not an object, and each field of those that are', () => {
    expect(errorsOf({ tags: [{ value: 'a' }, 5, null] })).toEqual([
      { field: 'tags[1]', message: 'tags[1] must be an object' },
      { field: 'tags[2]', message: 'tags[2] must be an object' },
    ]);
    expect(errorsOf({ tags: [{ value: 'a' }, {}] })).toEqual([{ field: 'tags[1].value', message: 'tags[1].value is required' }]);
    expect(errorsOf({ tags: [{ value: 'a' }] })).toEqual([]);
  });
});
