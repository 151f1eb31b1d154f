import 'reflect-metadata';

import { ApiProperty, ApiPropertyOptional, DECORATORS } from '@nestjs/swagger';
import { IsIn, IsString } from 'class-validator';

import { IsOptionalNotNull } from './optional';
import { assertSendsAField, PartialUpdateType } from './partial-update-type';
import { validateBody } from './validation';

class AddThing {
  @ApiProperty({ example: 'n' })
  @IsString()
  name: string;

  @ApiPropertyOptional({ enum: ['a', 'b'], default: 'a', description: 'a or b' })
  @IsOptionalNotNull()
  @IsIn(['a', 'b'], { message: 'kind must be one of a, b' })
  kind?: string;
}

class UpdateThing extends PartialUpdateType(AddThing) {}

const documented = (key: string) =>
  Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, UpdateThing.prototype, key);

describe('PartialUpdateType', () => {
  it('documents every field as optional, without the add defaults', () => {
    expect(documented('name')).toMatchObject({ required: false, example: 'n' });
    expect(documented('kind')).toMatchObject({ required: false, enum: ['a', 'b'] });
    expect(documented('kind')).not.toHaveProperty('default');
    expect(
      Reflect.getMetadata(DECORATORS.API_MODEL_PROPERTIES, AddThing.prototype, 'kind'),
    ).toEqual(expect.objectContaining({ default: 'a' }));
  });

  it('accepts fields left out, validates those sent, and refuses null', async () => {
    await expect(validateBody(UpdateThing, {})).resolves.toEqual({});
    await expect(validateBody(UpdateThing, { kind: 'b' })).resolves.toEqual({ kind: 'b' });
    await expect(validateBody(UpdateThing, { kind: 'c' })).rejects.toThrow(
      'kind: must be one of a, b',
    );
    await expect(validateBody(UpdateThing, { name: null })).rejects.toThrow(/^name: /);
    await expect(validateBody(UpdateThing, { other: 1 })).rejects.toThrow('other: unknown field');
  });
});

describe('assertSendsAField', () => {
  it('400 naming the documented fields (alphabetical) when no field is sent', async () => {
    const none = await validateBody(UpdateThing, {});
    expect(() => assertSendsAField(none)).toThrow(
      expect.objectContaining({
        status: 400,
        message: 'Send at least one field to change: kind, name',
      }),
    );
  });

  it('passes once one field is sent', async () => {
    expect(() => assertSendsAField(Object.assign(new UpdateThing(), { kind: 'b' }))).not.toThrow();
    const sent = await validateBody(UpdateThing, { name: 'x' });
    expect(() => assertSendsAField(sent)).not.toThrow();
  });
});
