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
    expect(nearMiss('totals', ['total'])).toBe('total');
    expect(nearMiss('amont', ['amount', 'category'])).toBe('amount');
    expect(nearMiss('recieved', ['received'])).toBe('received');
  });

  it('finds one word more or less at either end', () => {
    expect(nearMiss('employee', ['employee_name', 'total'])).toBe('employee_name');
    expect(nearMiss('validationErrors', ['success', 'validation', 'message'])).toBe('validation');
    expect(nearMiss('errorMessage', ['error', 'message', 'code'])).toBe('message');
    expect(nearMiss('flowName', ['flow', 'attempt'])).toBe('flow');
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
    expect(nearMiss('customer', ['customerName'], (name) => name === 'customer')).toBe('customerName');
  });

  it('stays quiet when one word more or less fits two declared names', () => {
    expect(nearMiss('name', ['firstName', 'lastName'])).toBeUndefined();
    expect(nearMiss('name', ['firstName', 'age'])).toBe('firstName');
    expect(nearMiss('errorMessage', ['error', 'message', 'internalErrorMessage'])).toBe('message');
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
