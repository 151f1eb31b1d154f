import { Type, ValidationError, ValidationPipe } from '@nestjs/common';
import { plainToInstance } from 'class-transformer';
import { getMetadataStorage, validate } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

import { BadRequestError } from './errors';

/**
 * class-validator works out a class's rules on every validation: it filters every rule of the
 * class and its parents, then groups them by property (a create's body: ~100 rules, every
 * request). Both depend only on the rules registered, which decorators add when the classes load:
 * here they are kept per class and options, and forgotten whenever a rule is added.
 */
function memoizeValidationMetadata(): void {
  const storage = getMetadataStorage();
  type Storage = typeof storage;
  let rules = new Map<unknown, Map<string, ValidationMetadata[]>>();
  let grouped = new WeakMap<ValidationMetadata[], Record<string, ValidationMetadata[]>>();
  const forget = () => {
    rules = new Map();
    grouped = new WeakMap();
  };
  const targetRules = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  const addRule = storage.addValidationMetadata.bind(storage);
  const addConstraint = storage.addConstraintMetadata.bind(storage);
  const addSchema = storage.addValidationSchema.bind(storage);
  storage.addValidationMetadata = (metadata) => {
    forget();
    addRule(metadata);
  };
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraint(metadata);
  };
  storage.addValidationSchema = (schema) => {
    forget();
    addSchema(schema);
  };
  storage.getTargetValidationMetadatas = ((target, schema, always, strictGroups, groups) => {
    const key = `${schema}\u0000${always}\u0000${strictGroups}\u0000${groups?.join('\u0000') ?? ''}\u0000${groups?.length ?? -1}`;
    let byOptions = rules.get(target);
    if (!byOptions) rules.set(target, (byOptions = new Map()));
    let found = byOptions.get(key);
    if (!found)
      byOptions.set(key, (found = targetRules(target, schema, always, strictGroups, groups)));
    return found;
  }) as Storage['getTargetValidationMetadatas'];
  storage.groupByPropertyName = (metadata) => {
    let found = grouped.get(metadata);
    if (!found) grouped.set(metadata, (found = group(metadata)));
    return found;
  };
}

memoizeValidationMetadata();

/** `urls[3].geotarget[2].location`: array indexes in brackets, properties after dots. */
function pathOf(parent: string, property: string): string {
  if (/^\d+$/.test(property)) return `${parent}[${property}]`;
  return parent ? `${parent}.${property}` : property;
}

/**
 * Rules about a value's JSON type, the container ones first. When one fails, the field's other
 * rules (ranges, lengths, its items) say nothing more: `"10"` for an integer is "must be an
 * integer number", not three messages with the cause last.
 */
const TYPE_RULES = [
  'isArray',
  'nestedValidation',
  'isObject',
  'isString',
  'isInt',
  'isNumber',
  'isBoolean',
  'isDate',
];

/** The JSON type each type rule wants, as jsonType names it. */
const WANTED: Record<string, string> = {
  isArray: 'an array',
  nestedValidation: 'an object',
  isObject: 'an object',
  isString: 'a string',
  isInt: 'a number',
  isNumber: 'a number',
  isBoolean: 'a boolean',
};

/** A JSON value's type as a message names it: `a string`, `an object`, `null`. */
function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

/**
 * ` (got a string)` when the value is of another JSON type than `rule` wants (`1.5` for an
 * integer: nothing). Not for a list checked item by item (`each`), whose value is the list.
 */
function got(rule: string, value: unknown): string {
  const type = jsonType(value);
  if (WANTED[rule] === type || (Array.isArray(value) && rule !== 'isArray')) return '';
  return ` (got ${type})`;
}

/** Rules naming the values a field takes: said beside "required". */
const CHOICE_RULES = ['isIn', 'isEnum'];

/** A rule's message without the field's name, which the path before it says: `each item must be a string`. */
function ruleText(message: string, property: string): string {
  if (message.startsWith(`${property} `)) return message.slice(property.length + 1);
  const each = `each value in ${property} `;
  return message.startsWith(each) ? `each item ${message.slice(each.length)}` : message;
}

/** The one message of a field whose own rules failed: missing, then its type, then its first rule. */
function ownMessage(e: ValidationError, path: string): string | null {
  const constraints = e.constraints ?? {};
  const rules = Object.keys(constraints);
  if (!rules.length) return null;
  if (rules.includes('whitelistValidation')) return `${path}: unknown field`;
  if (e.value === undefined) {
    const choice = CHOICE_RULES.find((rule) => rules.includes(rule));
    const values = choice && ruleText(constraints[choice], e.property);
    return values ? `${path}: required (${values})` : `${path}: required`;
  }
  const type = TYPE_RULES.find((rule) => rules.includes(rule));
  if (type === 'nestedValidation') return `${path}: must be an object${got(type, e.value)}`;
  const text = ruleText(constraints[type ?? rules[0]], e.property);
  return type ? `${path}: ${text}${got(type, e.value)}` : `${path}: ${text}`;
}

/**
 * One message per bad field, each naming its path; a field whose own rules failed is not
 * searched further (its items or properties would only repeat the cause).
 */
function flatten(errors: ValidationError[], parent = ''): string[] {
  return errors.flatMap((e) => {
    const path = pathOf(parent, e.property);
    const own = ownMessage(e, path);
    return own ? [own] : flatten(e.children ?? [], path);
  });
}

/** Formats class-validator errors as one message that names each bad field (at most five). */
export function validationMessage(errors: ValidationError[]): string {
  const all = [...new Set(flatten(errors))];
  // the fields the route has first: a missing or bad one is not cut off by unknown ones
  const unknown = (m: string) => m.endsWith(': unknown field');
  const messages = [...all.filter((m) => !unknown(m)), ...all.filter(unknown)];
  return messages.slice(0, 5).join('; ') || 'Invalid request';
}

const VALIDATOR_OPTIONS = {
  whitelist: true,
  forbidNonWhitelisted: true,
  forbidUnknownValues: true,
  // the value is read by the message (missing, its JSON type), never written into it
  validationError: { target: false, value: true },
};

/** The global pipe: whitelist, reject unknown fields, transform, and name the field on failure. */
export function createValidationPipe(): ValidationPipe {
  return new ValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: { enableImplicitConversion: false },
    exceptionFactory: (errors) => new BadRequestError(validationMessage(errors)),
  });
}

/**
 * Validates one plain object as the global pipe validates a body (for bodies that carry several,
 * such as bulk creation): the DTO instance, or a BadRequestError naming the fields.
 */
export async function validateBody<T extends object>(type: Type<T>, plain: unknown): Promise<T> {
  if (!plain || typeof plain !== 'object' || Array.isArray(plain))
    throw new BadRequestError('must be a JSON object');
  const instance = plainToInstance(type, plain, { enableImplicitConversion: false });
  const errors = await validate(instance, VALIDATOR_OPTIONS);
  if (errors.length) throw new BadRequestError(validationMessage(errors));
  return instance;
}
