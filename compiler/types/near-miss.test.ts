import { describe, expect, it } from 'vitest';
import { nearMiss, wordsOf } from './near-miss.js';

describe('nearMiss', () => {
  it('finds the same name spelled with another case or separators', () => {
    expect(nearMiss('employeeName', ['employee_name', 'total'])).toBe('employee_name');
    expect(nearMiss('OrderID', ['orderId'])).toBe('orderId');
    expect(nearMiss('id', ['ID'])).toBe('ID');
  });

  it('finds one edit away in names long enough', () => {
    expect(nearMiss('totl', ['total', 'trip_type'])).toBe('total');
    expect(nearMiss('amont', ['amount', 'category'])).toBe('amount');
    expect(nearMiss('recieved', ['received'])).toBe('received');
  });

  it('finds two declared names run together, by the one that ends the read', () => {
    expect(nearMiss('errorMessage', ['error', 'message', 'code', 'kind'])).toBe('message');
    expect(nearMiss('messageError', ['error', 'message', 'code', 'kind'])).toBe('error');
  });

  it('stays quiet on two declared names run together in the author data, and on word forms', () => {
    expect(nearMiss('contactEmail', ['name', 'contact', 'email'])).toBeUndefined();
    expect(nearMiss('deliveryAddress', ['delivery', 'address'])).toBeUndefined();
    expect(nearMiss('employer', ['employee'])).toBeUndefined();
    expect(nearMiss('payee', ['payer'])).toBeUndefined();
    expect(nearMiss('approved', ['approve'])).toBeUndefined();
    expect(nearMiss('diagnoses', ['diagnosis'])).toBeUndefined();
    expect(nearMiss('state', ['stage'])).toBeUndefined();
    expect(nearMiss('issuer', ['issue'])).toBeUndefined();
    expect(nearMiss('manager', ['manage'])).toBeUndefined();
    expect(nearMiss('_id', ['id', 'name'])).toBeUndefined();
    expect(nearMiss('id', ['_id', 'name'])).toBeUndefined();
    expect(nearMiss('_links', ['links'])).toBeUndefined();
    expect(nearMiss('lines', ['line1', 'line2'])).toBeUndefined();
    expect(nearMiss('rules', ['roles'])).toBeUndefined();
    expect(nearMiss('county', ['count'])).toBeUndefined();
    expect(nearMiss('scroe', ['score'])).toBe('score');
    expect(nearMiss('employe', ['employee'])).toBe('employee');
    expect(nearMiss('approvd', ['approve', 'approved'])).toBe('approve');
  });

  it('stays quiet on a declared name with one word more or less: related fields side by side', () => {
    expect(nearMiss('totalTax', ['total', 'items'])).toBeUndefined();
    expect(nearMiss('userName', ['user', 'email'])).toBeUndefined();
    expect(nearMiss('user', ['userName', 'email'])).toBeUndefined();
    expect(nearMiss('statusText', ['status'])).toBeUndefined();
    expect(nearMiss('shippingAddress', ['address'])).toBeUndefined();
    expect(nearMiss('employee', ['employee_name', 'total'])).toBeUndefined();
    expect(nearMiss('validationErrors', ['success', 'validation', 'message'])).toBeUndefined();
    expect(nearMiss('flowName', ['flow', 'attempt'])).toBeUndefined();
  });

  it('stays quiet on an edit of the first letter and on common pairs of distinct fields', () => {
    expect(nearMiss('height', ['weight'])).toBeUndefined();
    expect(nearMiss('mail', ['email'])).toBeUndefined();
    expect(nearMiss('county', ['country', 'city'])).toBeUndefined();
    expect(nearMiss('context', ['content'])).toBeUndefined();
    expect(nearMiss('expired', ['expires'])).toBeUndefined();
    expect(nearMiss('contry', ['country'])).toBe('country');
  });

  it('stays quiet on the plural or singular of a declared name', () => {
    expect(nearMiss('items', ['item', 'total'])).toBeUndefined();
    expect(nearMiss('item', ['items'])).toBeUndefined();
    expect(nearMiss('totals', ['total'])).toBeUndefined();
    expect(nearMiss('cities', ['city'])).toBeUndefined();
    expect(nearMiss('categories', ['category'])).toBeUndefined();
    expect(nearMiss('prices', ['price'])).toBeUndefined();
  });

  it('stays quiet on names that are not a slip of a declared one', () => {
    expect(nearMiss('data', ['date'])).toBeUndefined();
    expect(nearMiss('userId', ['id'])).toBeUndefined();
    expect(nearMiss('address2', ['address1'])).toBeUndefined();
    expect(nearMiss('line2', ['line'])).toBeUndefined();
    expect(nearMiss('discount', ['total', 'currency'])).toBeUndefined();
    expect(nearMiss('billingAddressLine', ['address'])).toBeUndefined();
    expect(nearMiss('internalErrorMessage', ['message'])).toBeUndefined();
    expect(nearMiss('minAmount', ['maxAmount'])).toBeUndefined();
    expect(nearMiss('orderId', ['order'])).toBeUndefined();
    expect(nearMiss('statusCode', ['status'])).toBeUndefined();
    expect(nearMiss('customerName', ['customer'], (name) => name === 'customer')).toBeUndefined();
    expect(nearMiss('customer', ['customerName'], (name) => name === 'customer')).toBeUndefined();
  });

  it('stays quiet when one word more or less fits two declared names', () => {
    expect(nearMiss('name', ['firstName', 'lastName'])).toBeUndefined();
    expect(nearMiss('name', ['firstName', 'age'])).toBeUndefined();
    expect(nearMiss('errorMessage', ['error', 'message', 'code', 'kind', 'internalErrorMessage'])).toBe('message');
  });

  it('is never a near miss of a declared name itself', () => {
    expect(nearMiss('total', ['total', 'totals'])).toBeUndefined();
  });
});

describe('wordsOf', () => {
  it('splits camelCase, separators and digits', () => {
    expect(wordsOf('validationErrors')).toEqual(['validation', 'errors']);
    expect(wordsOf('employee_name')).toEqual(['employee', 'name']);
    expect(wordsOf('content-type')).toEqual(['content', 'type']);
    expect(wordsOf('HTTPStatus')).toEqual(['http', 'status']);
    expect(wordsOf('line2')).toEqual(['line', '2']);
  });
});
