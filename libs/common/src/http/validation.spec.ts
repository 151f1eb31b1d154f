import 'reflect-metadata';

import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

import { validateBody } from './validation';

class Choice {
  @IsIn(['a', 'b'])
  kind: string;
}

class Rule {
  @IsString()
  @MaxLength(2)
  location: string;

  @IsString()
  link: string;
}

class Body {
  @IsString()
  @MaxLength(10)
  url: string;

  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(100)
  limit?: number;

  @IsOptional()
  @IsIn(['a', 'b'])
  kind?: string;

  @IsOptional()
  @IsString({ each: true })
  tags?: string[];

  @IsOptional()
  @IsArray()
  @ArrayMaxSize(2)
  @ValidateNested({ each: true })
  @Type(() => Rule)
  rules?: Rule[];
}

const messageOf = (plain: unknown) =>
  validateBody(Body, plain).then(
    () => 'valid',
    (err: Error) => err.message,
  );

describe('validation messages', () => {
  it('a missing field is "required", whatever its rules', async () => {
    expect(await messageOf({})).toBe('url: required');
  });

  it('a missing choice says its values', async () => {
    await expect(validateBody(Choice, {})).rejects.toThrow(
      /^kind: required \(must be one of the following values: a, b\)$/,
    );
  });

  it('a wrong JSON type is the one message of its field, naming what came', async () => {
    expect(await messageOf({ url: 'a', limit: '10' })).toBe(
      'limit: must be an integer number (got a string)',
    );
    expect(await messageOf({ url: 'a', limit: null })).toBe('valid'); // optional: null is none
    expect(await messageOf({ url: 5 })).toBe('url: must be a string (got a number)');
    expect(await messageOf({ url: 'a', rules: { location: 'US', link: 'x' } })).toBe(
      'rules: must be an array (got an object)',
    );
    expect(await messageOf({ url: 'a', rules: 'US' })).toBe(
      'rules: must be an array (got a string)',
    );
  });

  it('a value of the right type that breaks a rule says that rule alone', async () => {
    expect(await messageOf({ url: 'a', limit: 0 })).toBe('limit: must not be less than 1');
    expect(await messageOf({ url: 'a', limit: 1.5 })).toBe('limit: must be an integer number');
    expect(await messageOf({ url: 'a'.repeat(11) })).toBe(
      'url: must be shorter than or equal to 10 characters',
    );
  });

  it('items are searched only when the list itself is right, each bad field once', async () => {
    expect(await messageOf({ url: 'a', rules: [{ location: 'USA' }, 7] })).toBe(
      'rules[0].location: must be shorter than or equal to 2 characters; rules[0].link: required; rules[1]: must be an object (got a number)',
    );
    expect(await messageOf({ url: 'a', rules: [{}, {}, {}] })).toBe(
      'rules: must contain no more than 2 elements',
    );
  });

  it('unknown fields are named, several bad fields each once, at most five', async () => {
    expect(await messageOf({ url: 'a', extra: 1 })).toBe('extra: unknown field');
    expect(await messageOf({ a: 1, b: 1, c: 1, d: 1, e: 1, f: 1 })).toBe(
      'url: required; a: unknown field; b: unknown field; c: unknown field; d: unknown field',
    );
  });
});

describe('the rules kept per class', () => {
  it('answers the same as ever, and sees a rule added after a validation', async () => {
    class Late {
      @IsString()
      name: string;
    }
    await expect(validateBody(Late, { name: 'x' })).resolves.toBeInstanceOf(Late);
    await expect(validateBody(Late, { name: 1 })).rejects.toThrow('name: must be a string');
    // a rule registered now (a decorator applied late) counts from the next validation on
    MaxLength(2)(Late.prototype, 'name');
    await expect(validateBody(Late, { name: 'xyz' })).rejects.toThrow('name');
    await expect(validateBody(Late, { name: 'xy' })).resolves.toBeInstanceOf(Late);
  });
});
